import { Ajv2019, type ErrorObject, type ValidateFunction } from "ajv/dist/2019.js";
import odcsSchema from "./odcs/odcs-json-schema-v3.1.0.json" with { type: "json" };

/*
 * Validation against the Open Data Contract Standard's own JSON Schema
 * (v3.1.0, vendored with its licence in odcs/). Compiled once per process.
 */

let validator: ValidateFunction | undefined;

function compiled(): ValidateFunction {
  // Formats (date-time, ...) are annotations in draft 2019-09; we check the shapes.
  validator ??= new Ajv2019({ strict: false, allErrors: true, validateFormats: false }).compile(odcsSchema);
  return validator;
}

export interface OdcsProblem {
  /** JSON pointer into the contract, e.g. /schema/0/properties/2/required. */
  path: string;
  message: string;
}

function describe(error: ErrorObject): OdcsProblem {
  const where = error.instancePath || "/";
  if (error.keyword === "additionalProperties" || error.keyword === "unevaluatedProperties") {
    const extra = (error.params as { additionalProperty?: string; unevaluatedProperty?: string }).additionalProperty ?? (error.params as { unevaluatedProperty?: string }).unevaluatedProperty;
    return { path: where, message: `has a property ODCS does not define: "${extra}"` };
  }
  if (error.keyword === "enum") return { path: where, message: `must be one of ${((error.params as { allowedValues?: unknown[] }).allowedValues ?? []).join(", ")}` };
  return { path: where, message: error.message ?? error.keyword };
}

/** Problems of a contract under the ODCS JSON Schema; empty when valid. */
export function odcsProblems(contract: unknown): OdcsProblem[] {
  const validate = compiled();
  if (validate(contract)) return [];
  // if/then branches repeat the same problem; one line per path and message.
  const seen = new Set<string>();
  return (validate.errors ?? [])
    .filter((e) => e.keyword !== "if" && e.keyword !== "oneOf" && e.keyword !== "anyOf")
    .map(describe)
    .filter((p) => {
      const key = `${p.path} ${p.message}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
}
