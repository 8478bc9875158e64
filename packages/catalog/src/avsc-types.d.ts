// Declares the one avsc module the catalog imports directly (see
// schema-definition.ts); avsc's own typings cover only its package entry.
declare module "avsc/lib/types.js" {
  const types: { Type: { forSchema(schema: unknown): { typeName: string } } };
  export default types;
}
