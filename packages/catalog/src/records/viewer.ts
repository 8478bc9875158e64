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
  product: { id: string; name: string; topicName: string; domainId: string; classification: string; status: string; partitions: number; cleanupPolicy: string };
  role: "owner" | "subscriber";
  piiVisible: boolean;
  /** The viewer's subscriptions that give access (empty for owners). */
  subscriptionIds: string[];
  /** Fields that are masked for viewers without PII access. */
  sensitivePaths: string[];
  values: ValueContext;
}

export async function recordViewer(db: Db | Tx, actor: Actor, productId: string): Promise<RecordViewer> {
  const product = await db.dataProduct.findUnique({
    where: { id: productId },
    include: { schemaVersions: { where: { status: { not: "REJECTED" } }, orderBy: { version: "desc" } } },
  });
  if (!product) throw new NotFoundError("Data product", productId);
  const owner = canInDomain(actor, "product:browse", product.domainId);
  const myDomains = actor.memberships.filter((m) => m.domainId !== product.domainId).map((m) => m.domainId);
  const subscriptions = owner
    ? []
    : await db.subscription.findMany({
        where: { productId, consumingDomainId: { in: myDomains }, status: { in: ["APPROVED", "ACTIVE"] } },
        select: { id: true, piiRequested: true, piiApprovedAt: true },
      });
  if (!owner && subscriptions.length === 0) {
    throw new ForbiddenError("Only the product's domain and its active subscribers can read its records.");
  }
  if (!(READABLE_STATUSES as readonly string[]).includes(product.status)) {
    throw new ConflictError(`"${product.name}" is ${product.status}: it has no records to read.`, "NOT_ON_CLUSTER");
  }
  const piiVisible = owner || subscriptions.some((s) => s.piiRequested && s.piiApprovedAt !== null);
  // The newest approved version is what producers write now; pending ones may come next.
  const versions = [...product.schemaVersions].sort((a, b) => (a.status === b.status ? b.version - a.version : a.status === "APPROVED" ? -1 : 1));
  const format = versions[0]?.format ?? "AVRO";
  const tagged = new Set(versions.flatMap((v) => piiFieldPaths(v.format, v.definition)));
  const sensitivePaths = [...new Set([...tagged, ...product.maskedFields])].sort();
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
    },
    role: owner ? "owner" : "subscriber",
    piiVisible,
    subscriptionIds: subscriptions.map((s) => s.id),
    sensitivePaths,
    values: {
      format,
      versions: versions.map((v) => ({ version: v.version, definition: v.definition })),
      // Only this product's own versions: a foreign schema would not carry the product's PII tags.
      resolveSchemaId: (id) => {
        const v = versions.find((x) => x.schemaId === id);
        return v ? { version: v.version, definition: v.definition } : null;
      },
      piiVisible,
      maskedPaths: new Set(product.maskedFields),
      hasSensitiveFields: sensitivePaths.length > 0,
    },
  };
}
