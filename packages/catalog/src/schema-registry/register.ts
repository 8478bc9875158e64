import { z } from "zod";
import type { Db } from "../db.ts";
import { normalizedSchema } from "../schema/canonical.ts";
import { checkCompatibility, type CompatibilityResult } from "../schema/check-compatibility.ts";
import { DEFAULT_COMPATIBILITY_MODE, isCompatibilityMode, modeRequirements } from "../schema/modes.ts";
import { schemaDefinitionProblem } from "../schema-definition.ts";
import type { RegistryCaller } from "./caller.ts";
import { RegistryError } from "./registry-errors.ts";
import { mayWrite, ownVersions, parseVersion, productOfSubject, versionBody } from "./subjects.ts";

/*
 * The registry's write side is governed: nothing is registered behind the
 * portal's review. POST /subjects/{subject}/versions returns the id of an
 * APPROVED version with the same schema (so producers with
 * auto.register.schemas work once governance approved their schema) and
 * refuses anything else — 409 when it would break the subject's mode, 40301
 * with the way to the portal's review otherwise. It does not file proposals:
 * a schema change needs an owner's proposal and a reviewer, not a client's
 * side effect. Likewise the compatibility mode changes only through review;
 * PUT /config/{subject} answers for the mode in force and refuses a change.
 */

const schemaBody = z.object({
  schema: z.string({ message: "Expected a 'schema' string" }),
  schemaType: z.enum(["AVRO", "JSON", "PROTOBUF"]).optional(),
  references: z.array(z.unknown()).optional(),
});

/** The schema in a request body, checked against the subject's format; 42201 when it is not a valid schema of it. */
function schemaOfBody(body: unknown, format: "AVRO" | "JSON_SCHEMA"): string {
  const parsed = schemaBody.safeParse(body);
  if (!parsed.success) throw new RegistryError("INVALID_SCHEMA", `Invalid schema: ${parsed.error.issues[0]?.message ?? "malformed request body"}`);
  const { schema, schemaType = "AVRO", references } = parsed.data;
  if (references && references.length > 0) throw new RegistryError("INVALID_SCHEMA", "Invalid schema: schema references are not supported; a data product's schema is one document.");
  const wanted = schemaType === "JSON" ? "JSON_SCHEMA" : schemaType;
  if (wanted !== format) {
    throw new RegistryError("INVALID_SCHEMA", `Invalid schema: this subject holds ${format === "AVRO" ? "AVRO" : "JSON"} schemas, not ${schemaType}.`);
  }
  const problem = schemaDefinitionProblem(format, schema);
  if (problem) throw new RegistryError("INVALID_SCHEMA", `Invalid schema: ${problem}`);
  return schema;
}

/** POST /subjects/{subject}: the approved version with this schema. */
export async function lookupSchema(db: Db, caller: RegistryCaller, subject: string, body: unknown) {
  const product = await productOfSubject(db, caller, subject);
  const format = product.schemaVersions[0]?.format ?? "AVRO";
  const normalized = normalizedSchema(schemaOfBody(body, format));
  const version = product.schemaVersions.find((v) => normalizedSchema(v.definition) === normalized);
  if (!version) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  return versionBody(subject, version, normalized);
}

/** Confluent-style messages: one per incompatibility, then which version and mode. */
function confluentMessages(result: CompatibilityResult): string[] {
  const quote = (s: string) => s.replaceAll("'", "\\'");
  const messages = result.issues.map((i) => `{errorType:'${i.rule}', description:'${quote(i.message)}', additionalInfo:'${quote(i.path || i.location)}'}`);
  if (result.issues.length > 0) {
    messages.push(`{oldSchemaVersion: ${result.issues[0]?.version}}`, `{compatibility: '${result.mode}'}`);
  }
  return messages;
}

/** POST /subjects/{subject}/versions, governed (see above). */
export async function registerSchema(db: Db, caller: RegistryCaller, subject: string, body: unknown, portalUrl: string) {
  const product = await productOfSubject(db, caller, subject);
  if (!mayWrite(caller, product)) {
    throw new RegistryError("FORBIDDEN", `Not allowed to register schemas for subject '${subject}': only its domain's producer account and owners may.`);
  }
  // Rules and metadata come from the catalog's reviewed contract, never from a client (issue 29).
  const contract = (body ?? {}) as { ruleSet?: unknown; metadata?: unknown };
  if ((contract.ruleSet !== undefined && contract.ruleSet !== null) || (contract.metadata !== undefined && contract.metadata !== null)) {
    throw new RegistryError(
      "FORBIDDEN",
      `A schema's ruleSet and metadata come from the product's reviewed data contract in the portal (${portalUrl.replace(/\/$/, "")}/products/${product.id}); register the schema without them.`,
    );
  }
  const format = product.schemaVersions[0]?.format ?? "AVRO";
  const definition = schemaOfBody(body, format);
  const normalized = normalizedSchema(definition);
  // Only the subject's own major version takes records: the predecessor's schema in a new major version's subject is there to read by.
  const own = ownVersions(product);
  const approved = own.find((v) => normalizedSchema(v.definition) === normalized);
  if (approved?.schemaId) return { id: approved.schemaId };

  const review = `${portalUrl.replace(/\/$/, "")}/products/${product.id}/schema`;
  const pending = await db.schemaVersion.findFirst({ where: { productId: product.id, status: "PENDING" }, select: { version: true, definition: true } });
  if (pending && normalizedSchema(pending.definition) === normalized) {
    throw new RegistryError("FORBIDDEN", `This schema is version ${pending.version} of '${subject}', waiting for governance review (${review}); it can be registered once approved.`);
  }
  // Compatibility within the major version (Confluent's compatibilityGroup `major_version`).
  const versions = own.map((v) => ({ version: v.version, definition: v.definition }));
  const next = Math.max(0, ...product.schemaVersions.map((v) => v.version)) + 1;
  const result = checkCompatibility({ format, mode: product.compatibilityMode, candidate: { version: next, definition }, previous: versions });
  if (!result.compatible) {
    throw new RegistryError(
      "INCOMPATIBLE",
      `Schema being registered is incompatible with an earlier schema for subject "${subject}", details: [${confluentMessages(result).join(", ")}]. A breaking change is a new major version of the product (${review}).`,
    );
  }
  throw new RegistryError(
    "FORBIDDEN",
    `Schema registration is governed: propose this schema as a new version of '${subject}' in the portal (${review}); once a reviewer approves it, this request returns its id.`,
  );
}

/**
 * POST /compatibility/subjects/{subject}/versions[/{version}]: the same
 * verdict the portal gives. Without a version, or with `latest`, the schema is
 * checked as a new version against every version the subject's mode names;
 * with a version number, against that version only, in the mode's directions.
 */
export async function testCompatibility(db: Db, caller: RegistryCaller, subject: string, rawVersion: string | null, body: unknown) {
  const product = await productOfSubject(db, caller, subject);
  const format = product.schemaVersions[0]?.format ?? "AVRO";
  const definition = schemaOfBody(body, format);
  const versions = product.schemaVersions.map((v) => ({ version: v.version, definition: v.definition }));
  const next = Math.max(0, ...versions.map((v) => v.version)) + 1;
  const wanted = rawVersion === null ? "latest" : parseVersion(rawVersion);
  // As a new version: checked within the major version (compatibilityGroup `major_version`); against a named version, that one.
  let previous = ownVersions(product).map((v) => ({ version: v.version, definition: v.definition }));
  let mode = product.compatibilityMode;
  if (wanted !== "latest") {
    const one = versions.find((v) => v.version === wanted);
    if (!one) throw new RegistryError("VERSION_NOT_FOUND", `Version ${rawVersion} not found.`);
    previous = [one];
    // Against one version, a transitive mode means what its plain form does.
    const { directions } = modeRequirements(mode);
    mode = directions.length === 2 ? "FULL" : directions[0] === "FORWARD" ? "FORWARD" : directions[0] === "BACKWARD" ? "BACKWARD" : "NONE";
  }
  const result = checkCompatibility({ format, mode, candidate: { version: next, definition }, previous });
  return { is_compatible: result.compatible, messages: confluentMessages(result) };
}

/** GET /config/{subject}. */
export async function subjectConfig(db: Db, caller: RegistryCaller, subject: string) {
  const product = await productOfSubject(db, caller, subject);
  // Every version carries `metadata.properties.major_version`; compatibility is checked within one (issue 29).
  return { compatibilityLevel: product.compatibilityMode, compatibilityGroup: "major_version" };
}

/** GET /config: the platform's default for new products. */
export function globalConfig() {
  return { compatibilityLevel: DEFAULT_COMPATIBILITY_MODE };
}

/** PUT /config/{subject}: agrees with the mode in force, refuses a change (it goes through review). */
export async function updateSubjectConfig(db: Db, caller: RegistryCaller, subject: string, body: unknown, portalUrl: string) {
  const product = await productOfSubject(db, caller, subject);
  const level = (body as { compatibility?: unknown } | null)?.compatibility;
  if (!isCompatibilityMode(level)) throw new RegistryError("INVALID_COMPATIBILITY_LEVEL", `Invalid compatibility level. Valid values are ${["BACKWARD", "BACKWARD_TRANSITIVE", "FORWARD", "FORWARD_TRANSITIVE", "FULL", "FULL_TRANSITIVE", "NONE"].join(", ")}`);
  if (level === product.compatibilityMode) return { compatibility: level };
  throw new RegistryError(
    "FORBIDDEN",
    `The compatibility of '${subject}' is ${product.compatibilityMode}; changing it is a reviewed change with a reason, requested in the portal (${portalUrl.replace(/\/$/, "")}/products/${product.id}).`,
  );
}
