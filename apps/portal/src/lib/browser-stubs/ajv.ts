/*
 * Browser stand-in for Ajv (next.config.ts aliases it for client bundles):
 * Ajv compiles JSON Schemas into code with `new Function`, which the portal's
 * CSP forbids. The shared schema check skips it in the browser; the server
 * does the full check.
 */
export class Ajv {
  constructor() {
    throw new Error("JSON Schemas are compiled on the server only (the portal's CSP forbids generated code in the browser).");
  }
}
export { Ajv as Ajv2019, Ajv as Ajv2020 };
export default Ajv;
