import type { Prisma, SchemaFormat } from "@prisma/client";
import type { Db } from "../db.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { ENCRYPTED_TAG, encryptRule, registryMetadata, registryRuleSet } from "../quality/registry-rules.ts";
import { restrictToScopes } from "../tokens/scopes.ts";
import type { RegistryCaller } from "./caller.ts";
import { RegistryError } from "./registry-errors.ts";
import { assignRegistryIds } from "./registry-ids.ts";

/*
 * Subjects follow Confluent's TopicNameStrategy: a product's value schemas
 * are the subject `<topic>-value` (products have no separate key schema, so
 * there are no `-key` subjects). Subject versions are the product's APPROVED
 * schema versions, numbered as in the portal (a rejected proposal keeps its
 * number, so numbers may skip). What a caller sees:
 *   - a service account: the products it reads (an approved or active
 *     subscription) and, for a domain's producer account, its domain's live products;
 *     a derived product's job account, the inputs its job is granted;
 *   - a user: the products they may read in the portal (published ones, their
 *     domains' own, everything for governance).
 */
export const VALUE_SUFFIX = "-value";

/** Product states with a topic worth a subject (listing); RETIRED ones still resolve ids, for old data. */
const LIVE_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;
const PUBLISHED_OR_RETIRED = [...LIVE_STATUSES, "RETIRED"] as const;

export function subjectOf(topicName: string): string {
  return `${topicName}${VALUE_SUFFIX}`;
}

/** Confluent's `schemaType`: absent for Avro, "JSON" for JSON Schema. */
export function schemaTypeOf(format: SchemaFormat): "AVRO" | "JSON" {
  return format === "AVRO" ? "AVRO" : "JSON";
}

/** Products the caller may read through the registry (`live`: only those with a topic to produce to or read from). */
export function readableProducts(caller: RegistryCaller, live: boolean): Prisma.DataProductWhereInput {
  const statuses = live ? [...LIVE_STATUSES] : [...PUBLISHED_OR_RETIRED];
  if (caller.kind === "serviceAccount") {
    const { account } = caller;
    const reads: Prisma.DataProductWhereInput = { subscriptions: { some: { serviceAccountId: account.id, status: { in: ["APPROVED", "ACTIVE"] } } } };
    // A derived product's job account: the inputs its job is granted (authenticateServiceAccount works them out).
    const jobReads: Prisma.DataProductWhereInput[] = account.jobInputIds?.length ? [{ id: { in: account.jobInputIds } }] : [];
    return {
      status: { in: statuses },
      OR: account.isProducer ? [reads, ...jobReads, { domainId: account.domainId }] : [reads, ...jobReads],
    };
  }
  const { actor } = caller;
  if (hasGlobal(actor, "product:review")) return live ? { status: { in: statuses } } : {};
  return {
    OR: [{ status: { in: statuses } }, { domainId: { in: actor.memberships.map((m) => m.domainId) }, ...(live ? { status: { in: statuses } } : {}) }],
  };
}

/** Whether the caller may register schemas for the product (its domain's producer account or an owner). */
export function mayWrite(caller: RegistryCaller, product: { domainId: string }): boolean {
  if (caller.kind === "serviceAccount") return caller.account.isProducer && caller.account.domainId === product.domainId;
  // An API token writes only where its scopes reach (write:<domain>), as in every catalog action.
  const actor = caller.actor.token ? restrictToScopes(caller.actor, caller.actor.token) : caller.actor;
  return canInDomain(actor, "product:update", product.domainId);
}

export async function listSubjects(db: Db, caller: RegistryCaller): Promise<string[]> {
  const products = await db.dataProduct.findMany({
    where: { AND: [readableProducts(caller, true), { schemaVersions: { some: { status: "APPROVED" } } }] },
    select: { topicName: true },
    orderBy: { topicName: "asc" },
  });
  return products.map((p) => subjectOf(p.topicName));
}

/** The product behind a subject the caller may see, with its approved versions (ids assigned); 40401 otherwise. */
export async function productOfSubject(db: Db, caller: RegistryCaller, subject: string) {
  if (!subject.endsWith(VALUE_SUFFIX)) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  const topicName = subject.slice(0, -VALUE_SUFFIX.length);
  const where = { AND: [{ topicName }, readableProducts(caller, false)] };
  const include = {
    schemaVersions: { where: { status: "APPROVED" as const }, orderBy: { version: "asc" as const } },
    domain: { select: { slug: true } },
    qualityRules: { orderBy: { position: "asc" as const } },
  };
  let product = await db.dataProduct.findFirst({ where, include });
  if (!product || product.schemaVersions.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  // Versions approved before registry ids existed get theirs on first use.
  if (product.schemaVersions.some((v) => v.schemaId === null)) {
    await assignRegistryIds(db, { productId: product.id });
    product = await db.dataProduct.findFirstOrThrow({ where, include });
  }
  return product;
}

type SubjectProduct = Awaited<ReturnType<typeof productOfSubject>>;
type ApprovedVersion = SubjectProduct["schemaVersions"][number];

/**
 * A subject version as Confluent's registry answers it, with the data
 * contract (issue 29): `metadata` (field tags from the schema's
 * classification, the product's owner, classification and SLA) and `ruleSet`
 * (the product's data-quality rules, which apply to every version of its topic).
 */
export function versionBody(subject: string, version: ApprovedVersion, normalized: string, product: SubjectProduct) {
  return {
    subject,
    version: version.version,
    id: version.schemaId ?? 0,
    ...(version.format === "AVRO" ? {} : { schemaType: schemaTypeOf(version.format) }),
    schema: normalized,
    ...contractOf(version, product),
  };
}

/**
 * The version's `metadata` and `ruleSet`. When the owners opted in to
 * encryption and the version has fields tagged PII, the ruleSet ends with the
 * ENCRYPT rule naming the domain's KEK (`kappa-<domain>`, local KMS key
 * `kappa/<domain>`; the DEK Registry API serves both).
 */
function contractOf(version: ApprovedVersion, product: SubjectProduct) {
  const metadata = registryMetadata(product, version);
  const encrypted = product.encryptPii && Object.values(metadata.tags).some((tags) => tags.includes(ENCRYPTED_TAG));
  const encrypt = encrypted ? encryptRule(`kappa-${product.domain.slug}`, "local-kms", `kappa/${product.domain.slug}`) : null;
  return { metadata, ruleSet: registryRuleSet(product.topicName, product.qualityRules, encrypt) };
}

/** `latest`, `-1` (Confluent's alias of latest) or a positive version number; 42202 otherwise. */
export function parseVersion(raw: string): number | "latest" {
  if (raw === "latest" || raw === "-1") return "latest";
  if (!/^[1-9][0-9]{0,9}$/.test(raw)) throw new RegistryError("INVALID_VERSION", `The specified version '${raw}' is not a valid version id. Allowed values are between [1, 2^31-1] and the string "latest"`);
  return Number(raw);
}

export async function subjectVersion(db: Db, caller: RegistryCaller, subject: string, rawVersion: string) {
  const wanted = parseVersion(rawVersion);
  const product = await productOfSubject(db, caller, subject);
  const version = wanted === "latest" ? product.schemaVersions[product.schemaVersions.length - 1] : product.schemaVersions.find((v) => v.version === wanted);
  if (!version?.schemaId) throw new RegistryError("VERSION_NOT_FOUND", `Version ${rawVersion} not found.`);
  const schema = await db.registrySchema.findUniqueOrThrow({ where: { id: version.schemaId }, select: { normalized: true } });
  return versionBody(subject, version, schema.normalized, product);
}

/**
 * A schema by its global id, if an approved version of a product the caller
 * may read uses it (40403 otherwise: no probing of other products' schemas).
 */
export async function schemaById(db: Db, caller: RegistryCaller, id: number, subject: string | null = null) {
  const schema = await db.registrySchema.findFirst({
    where: { id, versions: { some: { status: "APPROVED", product: readableProducts(caller, false) } } },
    select: { format: true, normalized: true },
  });
  if (!schema) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  const body = { schema: schema.normalized, ...(schema.format === "AVRO" ? {} : { schemaType: schemaTypeOf(schema.format) }) };
  // `?subject=` (what a deserializer sends with the writer's id): that subject's contract with it, as Confluent serves
  // the rules a schema was registered with — so a consumer's deserializer runs the READ rules (decryption) by default.
  if (subject === null || !/^[A-Za-z0-9._-]{1,249}-value$/.test(subject)) return body;
  const product = await productOfSubject(db, caller, subject).catch((error: unknown) => {
    if (error instanceof RegistryError) return null;
    throw error;
  });
  const version = product?.schemaVersions.findLast((v) => v.schemaId === id);
  return product && version ? { ...body, ...contractOf(version, product) } : body;
}

/** Subject-version pairs that use a schema id, among those the caller may see. */
export async function subjectVersionsOfSchema(db: Db, caller: RegistryCaller, id: number) {
  const versions = await db.schemaVersion.findMany({
    where: { schemaId: id, status: "APPROVED", product: readableProducts(caller, false) },
    select: { version: true, product: { select: { topicName: true } } },
    orderBy: [{ product: { topicName: "asc" } }, { version: "asc" }],
  });
  if (versions.length === 0) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  return versions.map((v) => ({ subject: subjectOf(v.product.topicName), version: v.version }));
}
