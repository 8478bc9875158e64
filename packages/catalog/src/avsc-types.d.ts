// Declares the one avsc module the catalog imports directly (see
// schema-definition.ts and records/avro-value.ts); avsc's own typings cover
// only its package entry.
declare module "avsc/lib/types.js" {
  interface AvscType {
    typeName: string;
    /** The type's Parsing Canonical Form as a JSON value (Avro spec), unless `exportAttrs`. */
    schema(opts?: { exportAttrs?: boolean; noDeref?: boolean }): unknown;
    /** Throws when data written with `writer` cannot be read as this type. */
    createResolver(writer: AvscType, opts?: { ignoreNamespaces?: boolean }): unknown;
    toBuffer(value: unknown): Buffer;
    fromBuffer(buffer: Uint8Array, resolver?: unknown, noCheck?: boolean): unknown;
  }
  /** What LongType.__with needs (records/avro-value.ts: longs as bigint, no precision lost). */
  interface LongMethods {
    fromBuffer(buffer: Buffer): bigint;
    toBuffer(value: bigint): Buffer;
    fromJSON(value: unknown): bigint;
    toJSON(value: bigint): unknown;
    isValid(value: unknown): boolean;
    compare(a: bigint, b: bigint): number;
  }
  const types: {
    Type: { forSchema(schema: unknown, opts?: Record<string, unknown>): AvscType };
    builtins: { LongType: { __with(methods: LongMethods, noUnpack?: boolean): unknown } };
  };
  export default types;
}
