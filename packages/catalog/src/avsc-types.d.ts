// Declares the one avsc module the catalog imports directly (see
// schema-definition.ts); avsc's own typings cover only its package entry.
declare module "avsc/lib/types.js" {
  interface AvscType {
    typeName: string;
    /** The type's Parsing Canonical Form as a JSON value (Avro spec), unless `exportAttrs`. */
    schema(opts?: { exportAttrs?: boolean; noDeref?: boolean }): unknown;
    /** Throws when data written with `writer` cannot be read as this type. */
    createResolver(writer: AvscType, opts?: { ignoreNamespaces?: boolean }): unknown;
    toBuffer(value: unknown): Uint8Array;
    fromBuffer(buffer: Uint8Array, resolver?: unknown, noCheck?: boolean): unknown;
  }
  const types: { Type: { forSchema(schema: unknown, opts?: Record<string, unknown>): AvscType } };
  export default types;
}
