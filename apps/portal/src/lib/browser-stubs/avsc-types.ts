/*
 * Browser stand-in for avsc's type system (next.config.ts aliases it for
 * client bundles). avsc compiles schemas into code with `new Function`, which
 * the portal's CSP forbids; the shared schema check skips it in the browser
 * (packages/catalog/src/schema-definition.ts) and the server does the full
 * check. Reaching this is a bug, so it says so.
 */
function unavailable(): never {
  throw new Error("Avro schemas are compiled on the server only (the portal's CSP forbids generated code in the browser).");
}

const avroTypes = { Type: { forSchema: unavailable } };
export default avroTypes;
