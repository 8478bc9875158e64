import { ErrorCode, errorMessages } from "./generated/error-codes.ts";

const NAMES = new Map<number, string>(Object.entries(ErrorCode).map(([name, code]) => [code, name]));

/** Kafka's name for an error code ("UNKNOWN_TOPIC_OR_PARTITION"), or `UNKNOWN(<code>)`. */
export function errorName(code: number): string {
  return NAMES.get(code) ?? `UNKNOWN(${code})`;
}

/** The first sentence of Kafka's message for an error code ("" for NONE or unknown codes). */
export function errorMessage(code: number): string {
  return errorMessages[code] ?? "";
}
