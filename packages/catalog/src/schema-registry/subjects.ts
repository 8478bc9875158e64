import type { Prisma, SchemaFormat } from "@prisma/client";
import type { Db } from "../db.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { migrationRulesOf, registryMigrationRules } from "../quality/migration-rules.ts";
import { ENCRYPTED_TAG, encryptRule, registryMetadata, registryRuleSet, type RegistryRule } from "../quality/registry-rules.ts";
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

const contractInclude = {
  domain: { select: { slug: true } },
  qualityRules: { orderBy: { position: "asc" as const } },
};

/** Whose contract (metadata properties, data-quality rules, encryption) a subject version carries. */
type ContractProduct = Prisma.DataProductGetPayload<{ include: typeof contractInclude }>;

/**
 * A version of a subject: an approved schema version with its number in the
 * subject, its major version and the contract it is served with. A product's
 * own versions keep the portal's numbers — except in the subject of a new
 * major version with migration rules (issue 29): there the predecessor's newest
 * approved schema comes first, as version 1 with `major_version` N (and the
 * predecessor's own contract), and the product's versions follow, shifted by
 * one, with `major_version` N+1; the first of them carries the migration rules
 * (DOWNGRADE to N, UPGRADE from N), as in Confluent where the rules belong to
 * the version that starts the new major version. `@confluentinc/schemaregistry`'s
 * deserializer reads the subject's versions in order and runs the rules of those
 * between the writer's version and the one it asked for by metadata.
 */
type SubjectVersionOf<V> = V & { contract: ContractProduct; majorVersion: number; migrationRules: RegistryRule[]; predecessor: boolean };

/** The product behind a subject the caller may see, with its approved versions (ids assigned) as the subject's versions; 40401 otherwise. */
export async function productOfSubject(db: Db, caller: RegistryCaller, subject: string) {
  if (!subject.endsWith(VALUE_SUFFIX)) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  const topicName = subject.slice(0, -VALUE_SUFFIX.length);
  const where = { AND: [{ topicName }, readableProducts(caller, false)] };
  const include = {
    schemaVersions: { where: { status: "APPROVED" as const }, orderBy: { version: "asc" as const } },
    ...contractInclude,
    predecessor: { include: { schemaVersions: { where: { status: "APPROVED" as const }, orderBy: { version: "desc" as const }, take: 1 }, ...contractInclude } },
  };
  let product = await db.dataProduct.findFirst({ where, include });
  if (!product || product.schemaVersions.length === 0) throw new RegistryError("SUBJECT_NOT_FOUND", `Subject '${subject}' not found.`);
  const migration = migrationRulesOf(product.migrationRules);
  const predecessor = migration && product.predecessor && product.predecessor.schemaVersions.length > 0 ? product.predecessor : null;
  // Versions approved before registry ids existed get theirs on first use.
  if (product.schemaVersions.some((v) => v.schemaId === null) || predecessor?.schemaVersions.some((v) => v.schemaId === null)) {
    await assignRegistryIds(db, { productId: product.id });
    if (predecessor) await assignRegistryIds(db, { productId: predecessor.id });
    product = await db.dataProduct.findFirstOrThrow({ where, include });
  }
  const { predecessor: withPredecessor, schemaVersions: own, ...rest } = product;
  const contract: ContractProduct = { ...rest, schemaVersions: undefined } as unknown as ContractProduct;
  const offset = predecessor ? 1 : 0;
  const schemaVersions: SubjectVersionOf<(typeof own)[number]>[] = [];
  if (predecessor && withPredecessor?.schemaVersions[0]) {
    const { schemaVersions: _ignored, ...predecessorContract } = withPredecessor;
    schemaVersions.push({ ...withPredecessor.schemaVersions[0], version: 1, contract: predecessorContract, majorVersion: withPredecessor.majorVersion, migrationRules: [], predecessor: true });
  }
  own.forEach((v, i) => {
    schemaVersions.push({
      ...v,
      version: v.version + offset,
      contract,
      majorVersion: product.majorVersion,
      migrationRules: predecessor && i === 0 ? registryMigrationRules(migration, predecessor.majorVersion) : [],
      predecessor: false,
    });
  });
  return { ...rest, schemaVersions };
}

type SubjectProduct = Awaited<ReturnType<typeof productOfSubject>>;
type ApprovedVersion = SubjectProduct["schemaVersions"][number];

/** The subject's versions of the product's own major version (compatibility is checked within it: Confluent's compatibilityGroup `major_version`). */
export function ownVersions(product: SubjectProduct): ApprovedVersion[] {
  return product.schemaVersions.filter((v) => !v.predecessor);
}

/**
 * A subject version as Confluent's registry answers it, with the data
 * contract (issue 29): `metadata` (field tags from the schema's
 * classification, the product's owner, classification and SLA) and `ruleSet`
 * (the product's data-quality rules, which apply to every version of its topic).
 */
export function versionBody(subject: string, version: ApprovedVersion, normalized: string) {
  return {
    subject,
    version: version.version,
    id: version.schemaId ?? 0,
    ...(version.format === "AVRO" ? {} : { schemaType: schemaTypeOf(version.format) }),
    schema: normalized,
    ...contractOf(version),
  };
}

/**
 * The version's `metadata` and `ruleSet`. When the owners opted in to
 * encryption and the version has fields tagged PII, the ruleSet ends with the
 * ENCRYPT rule naming the domain's KEK (`kappa-<domain>`, local KMS key
 * `kappa/<domain>`; the DEK Registry API serves both).
 */
function contractOf(version: ApprovedVersion) {
  const product = version.contract;
  const base = registryMetadata(product, version);
  const metadata = { ...base, properties: { ...base.properties, major_version: String(version.majorVersion) } };
  const encrypted = product.encryptPii && Object.values(metadata.tags).some((tags) => tags.includes(ENCRYPTED_TAG));
  const encrypt = encrypted ? encryptRule(`kappa-${product.domain.slug}`, "local-kms", `kappa/${product.domain.slug}`) : null;
  const ruleSet = registryRuleSet(product.topicName, product.qualityRules, encrypt);
  return { metadata, ruleSet: { ...ruleSet, migrationRules: version.migrationRules } };
}

/** Metadata filters are property names and values as Confluent's clients send them: a few, short. */
const METADATA_PAIRS_MAX = 16;
const METADATA_TEXT_MAX = 256;

/**
 * GET /subjects/{subject}/metadata?key=k1&value=v1[&key=k2&value=v2…]: the
 * newest version whose `metadata.properties` hold every pair — what
 * `@confluentinc/schemaregistry`'s `getLatestWithMetadata` asks (a deserializer
 * with `useLatestWithMetadata: { major_version: "1" }`). 40403 when no version
 * matches; 400 when the keys and values do not pair up.
 */
export async function latestWithMetadata(db: Db, caller: RegistryCaller, subject: string, keys: readonly string[], values: readonly string[]) {
  if (keys.length !== values.length || keys.length === 0 || keys.length > METADATA_PAIRS_MAX || [...keys, ...values].some((t) => t.length > METADATA_TEXT_MAX)) {
    throw new RegistryError("BAD_REQUEST", `Give 1 to ${METADATA_PAIRS_MAX} metadata properties as matching key= and value= parameters, each at most ${METADATA_TEXT_MAX} characters.`);
  }
  const product = await productOfSubject(db, caller, subject);
  const version = product.schemaVersions.findLast((v) => {
    const properties: Record<string, string> = contractOf(v).metadata.properties;
    return keys.every((key, i) => Object.hasOwn(properties, key) && properties[key] === values[i]);
  });
  if (!version?.schemaId) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  const schema = await db.registrySchema.findUniqueOrThrow({ where: { id: version.schemaId }, select: { normalized: true } });
  return versionBody(subject, version, schema.normalized);
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
  const version = wanted === "latest" ? product.schemaVersions.at(-1) : product.schemaVersions.find((v) => v.version === wanted);
  if (!version?.schemaId) throw new RegistryError("VERSION_NOT_FOUND", `Version ${rawVersion} not found.`);
  const schema = await db.registrySchema.findUniqueOrThrow({ where: { id: version.schemaId }, select: { normalized: true } });
  return versionBody(subject, version, schema.normalized);
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
  return product && version ? { ...body, ...contractOf(version) } : body;
}

/** Subject-version pairs that use a schema id, among those the caller may see. */
export async function subjectVersionsOfSchema(db: Db, caller: RegistryCaller, id: number) {
  const versions = await db.schemaVersion.findMany({
    where: { schemaId: id, status: "APPROVED", product: readableProducts(caller, false) },
    select: { version: true, product: { select: { topicName: true, migrationRules: true, predecessorId: true } } },
    orderBy: [{ product: { topicName: "asc" } }, { version: "asc" }],
  });
  if (versions.length === 0) throw new RegistryError("SCHEMA_NOT_FOUND", "Schema not found");
  // In the subject of a new major version with migration rules, the predecessor's schema is version 1 (productOfSubject).
  const offset = (p: { migrationRules: unknown; predecessorId: string | null }) => (p.predecessorId && migrationRulesOf(p.migrationRules) ? 1 : 0);
  return versions.map((v) => ({ subject: subjectOf(v.product.topicName), version: v.version + offset(v.product) }));
}
