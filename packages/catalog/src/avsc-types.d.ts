// Declares the one avsc module the catalog imports directly (see
// schema-definition.ts and records/avro-value.ts); avsc's own typings cover
// only its package entry.
declare module "avsc/lib/types.js" {
  interface AvroType {
    typeName: string;
    fromBuffer(buffer: Buffer, resolver?: unknown, noCheck?: boolean): unknown;
    toBuffer(value: unknown): Buffer;
  }
  interface LongMethods {
    fromBuffer(buffer: Buffer): bigint;
    toBuffer(value: bigint): Buffer;
    fromJSON(value: unknown): bigint;
    toJSON(value: bigint): unknown;
    isValid(value: unknown): boolean;
    compare(a: bigint, b: bigint): number;
  }
  const types: {
    Type: { forSchema(schema: unknown, options?: { wrapUnions?: boolean | "auto" | "always" | "never"; registry?: Record<string, unknown> }): AvroType };
    builtins: { LongType: { __with(methods: LongMethods, noUnpack?: boolean): unknown } };
  };
  export default types;
}
