/// <reference path="../avsc-types.d.ts" />
// avsc's type system alone: its package entry also pulls in file and stream support.
import avroTypes from "avsc/lib/types.js";
import { ParseCache } from "./parse-cache.ts";

/*
 * avsc's resolver is the second opinion on Avro readability: it is the code
 * that actually decodes records in Node (the consumers, the message browser),
 * so a pair it cannot resolve must never pass, whatever the walker says. It
 * compiles a reader per record, a millisecond or more per large schema, so the
 * check asks it about the latest version only; the walker covers the rest.
 *
 * `ignoreNamespaces`: the specification (and Avro's Java checker) match named
 * types on their unqualified names; avsc's default compares full names.
 */
const types = new ParseCache((definition) => avroTypes.Type.forSchema(JSON.parse(definition)), 64);

/** avsc's parsed type of a definition, cached by its text. */
export function avscType(definition: string) {
  return types.get(definition);
}

/** Why avsc cannot read data written with `writer` using `reader`, or null when it can. */
export function avscResolutionProblem(reader: string, writer: string): string | null {
  try {
    types.get(reader).createResolver(types.get(writer), { ignoreNamespaces: true });
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}
