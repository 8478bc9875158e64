import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { Prisma } from "@prisma/client";
import { parse as parseYaml, YAMLParseError } from "yaml";
import type { Db, Tx } from "../db.ts";
import { ValidationError } from "../errors.ts";
import { fieldErrors } from "../validation.ts";
import { policyDocument, type PolicyDocument } from "./document.ts";

/**
 * The committed default policy (YAML), loaded as version 1 into an empty
 * catalog by `npm start` (and lazily by tests). Resolved on first use, not at
 * import: the portal's bundle imports this module but never needs the file.
 */
export function defaultPolicyPath(): string {
  return path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../policies/default.yaml");
}

export function defaultPolicySource(): string {
  return readFileSync(defaultPolicyPath(), "utf8");
}

/** Parses and validates policy YAML; refuses with the line or the rule field at fault. */
export function parsePolicySource(source: string): PolicyDocument {
  let raw: unknown;
  try {
    raw = parseYaml(source, { prettyErrors: true, maxAliasCount: 100 });
  } catch (error) {
    const message = error instanceof YAMLParseError ? error.message : String(error);
    throw new ValidationError("The policy is not valid YAML.", { source: [message] });
  }
  const result = policyDocument.safeParse(raw);
  if (!result.success) {
    const fields = fieldErrors(result.error);
    const first = Object.entries(fields)[0];
    throw new ValidationError(`The policy document is invalid${first ? `: ${first[0]}: ${first[1].join(" ")}` : "."}`, { source: Object.entries(fields).map(([k, v]) => `${k}: ${v.join(" ")}`) });
  }
  return result.data;
}

/** A plain JSON copy for a Prisma Json column (drops undefined, keeps the shape). */
export function jsonValue(value: unknown): Prisma.InputJsonValue {
  return JSON.parse(JSON.stringify(value)) as Prisma.InputJsonValue;
}

export interface ActivePolicy {
  version: number;
  document: PolicyDocument;
}

/**
 * Loads the committed default as version 1 when the catalog has no policy yet
 * (start-up, fresh test databases). Concurrent callers are harmless: the
 * version is the primary key, so a second insert of 1 is a no-op.
 */
export async function ensureDefaultPolicy(db: Db | Tx): Promise<void> {
  if (await db.policyVersion.findFirst({ select: { version: true } })) return;
  const source = defaultPolicySource();
  const document = parsePolicySource(source);
  await db.policyVersion.createMany({
    data: [{ version: 1, source, document: jsonValue(document), reason: "Committed default policy", createdByEmail: "system" }],
    skipDuplicates: true,
  });
}

/** The policy in force: the highest version (the default is loaded if there is none). */
export async function activePolicy(db: Db | Tx): Promise<ActivePolicy> {
  let row = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
  if (!row) {
    await ensureDefaultPolicy(db);
    row = await db.policyVersion.findFirst({ orderBy: { version: "desc" } });
  }
  if (!row) throw new Error("No policy version could be loaded.");
  // Stored documents were validated on the way in; parsing again applies defaults added since.
  return { version: row.version, document: policyDocument.parse(row.document) };
}
