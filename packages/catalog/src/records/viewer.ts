import type { Actor } from "../actor.ts";
import type { Db, Tx } from "../db.ts";
import { ConflictError, ForbiddenError, NotFoundError } from "../errors.ts";
import { canInDomain } from "../permissions.ts";
import { piiFieldPaths } from "../schema/pii.ts";
import type { ValueContext } from "./decode-value.ts";

/*
 * Who may read a product's records (message browser, latest-state view) and
 * what they see: members of the owning domain see everything; members of a
 * domain with an approved or active subscription see PII masked, unless one
 * of those subscriptions asked for PII and governance approved it. Nobody
 * else reads records at all — not governance, not admins: reading data is a
 * grant, not a role.
 */

export const READABLE_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

export interface RecordViewer {
  product: { id: string; name: string; topicName: string; domainId: string; classification: string; status: string; partitions: number; cleanupPolicy: string; encryptPii: boolean };
  /** Fields the producer's serializer encrypts (tagged PII, the owners opted in to encryption; issue 29). */
  encryptedPaths: string[];
  role: "owner" | "subscriber";
  piiVisible: boolean;
  /** The viewer's subscriptions that give access (empty for owners). */
  subscriptionIds: string[];
  /** Fields that are masked for viewers without PII access. */
  sensitivePaths: string[];
  /**
   * The record key is masked for this viewer: one of the product's key fields
   * is PII (tagged or on the masking list) and the viewer may not see PII —
   * the same rule as for values (issue 30, finding 6).
   */
  keyMasked: boolean;
  /** Record headers are withheld for this viewer (no PII access): they are free-form, nothing says what they hold. */
  headersHidden: boolean;
  values: ValueContext;
}

export async function recordViewer(db: Db | Tx, actor: Actor, productId: string): Promise<RecordViewer> {
  // Every read of records passes here (key lookups included): the product, its
  // schema versions and the actor's subscriptions are three independent
  // queries, sent together so a lookup waits for one round trip, not three.
  const myDomainIds = actor.memberships.map((m) => m.domainId);
  const [found, schemaVersions, mySubscriptions] = await Promise.all([
    db.dataProduct.findUnique({ where: { id: productId } }),
    db.schemaVersion.findMany({ where: { productId, status: { not: "REJECTED" } }, orderBy: { version: "desc" } }),
    myDomainIds.length === 0
      ? []
      : db.subscription.findMany({
          where: { productId, consumingDomainId: { in: myDomainIds }, status: { in: ["APPROVED", "ACTIVE"] } },
          select: { id: true, piiRequested: true, piiApprovedAt: true, consumingDomainId: true },
        }),
  ]);
  if (!found) throw new NotFoundError("Data product", productId);
  const product = { ...found, schemaVersions };
  const owner = canInDomain(actor, "product:browse", product.domainId);
  // A subscription of the product's own domain grants nothing beyond ownership.
  const subscriptions = owner ? [] : mySubscriptions.filter((s) => s.consumingDomainId !== product.domainId);
  if (!owner && subscriptions.length === 0) {
    throw new ForbiddenError("Only the product's domain and its active subscribers can read its records.");
  }
  if (!(READABLE_STATUSES as readonly string[]).includes(product.status)) {
    throw new ConflictError(`"${product.name}" is ${product.status}: it has no records to read.`, "NOT_ON_CLUSTER");
  }
  const piiVisible = owner || subscriptions.some((s) => s.piiRequested && s.piiApprovedAt !== null);
  const { values, sensitivePaths } = valueContextOf(product.schemaVersions, product.maskedFields, piiVisible);
  return {
    product: {
      id: product.id,
      name: product.name,
      topicName: product.topicName,
      domainId: product.domainId,
      classification: product.classification,
      status: product.status,
      partitions: product.partitions,
      cleanupPolicy: product.cleanupPolicy,
      encryptPii: product.encryptPii,
    },
    encryptedPaths: product.encryptPii ? [...new Set(product.schemaVersions.flatMap((v) => piiFieldPaths(v.format, v.definition)))].sort() : [],
    role: owner ? "owner" : "subscriber",
    piiVisible,
    subscriptionIds: subscriptions.map((s) => s.id),
    sensitivePaths,
    keyMasked: !piiVisible && product.keyFields.some((field) => sensitivePaths.includes(field)),
    headersHidden: !piiVisible,
    values,
  };
}

type VersionRow = { version: number; definition: string; format: "AVRO" | "JSON_SCHEMA"; status: string; schemaId: number | null };

/**
 * How a product's record values decode — its schema versions, the newest
 * approved first (what producers write now; pending ones may come next),
 * registry ids resolved to them — and which fields are sensitive (PII-tagged
 * in any version, or on the masking list).
 */
export function valueContextOf(schemaVersions: readonly VersionRow[], maskedFields: readonly string[], piiVisible: boolean): { values: ValueContext; sensitivePaths: string[] } {
  const versions = [...schemaVersions].sort((a, b) => (a.status === b.status ? b.version - a.version : a.status === "APPROVED" ? -1 : 1));
  const tagged = new Set(versions.flatMap((v) => piiFieldPaths(v.format, v.definition)));
  const sensitivePaths = [...new Set([...tagged, ...maskedFields])].sort();
  const values: ValueContext = {
    format: versions[0]?.format ?? "AVRO",
    versions: versions.map((v) => ({ version: v.version, definition: v.definition })),
    // Only this product's own versions: a foreign schema would not carry the product's PII tags.
    resolveSchemaId: (id) => {
      const v = versions.find((x) => x.schemaId === id);
      return v ? { version: v.version, definition: v.definition } : null;
    },
    piiVisible,
    maskedPaths: new Set(maskedFields),
    hasSensitiveFields: sensitivePaths.length > 0,
  };
  return { values, sensitivePaths };
}

/**
 * The decoding context of a product's values with every field visible, for
 * evaluating rules where nothing of a record is returned (a reviewer's view of
 * a rules change: counts only). No permission is implied: the caller decides.
 */
export async function evaluationContextOf(db: Db | Tx, productId: string): Promise<ValueContext> {
  const [product, schemaVersions] = await Promise.all([
    db.dataProduct.findUnique({ where: { id: productId }, select: { maskedFields: true } }),
    db.schemaVersion.findMany({ where: { productId, status: { not: "REJECTED" } }, orderBy: { version: "desc" } }),
  ]);
  if (!product) throw new NotFoundError("Data product", productId);
  return valueContextOf(schemaVersions, product.maskedFields, true).values;
}
