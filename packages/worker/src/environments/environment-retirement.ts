/*
 * A retired product on a registered cluster. Retirement revokes the product's
 * subscriptions (environment-grants.ts then removes their ACLs there); this
 * removes what the promotion itself created: the domain producer's WRITE and
 * DESCRIBE on the topic (and its IDEMPOTENT_WRITE once no other product of the
 * domain is live on that cluster) and — when the worker deletes retired topics
 * (WORKER_RETIRED_TOPICS=delete), as on the primary — the topic. The
 * deployment then reads RETIRED and is left alone.
 */
import type { Cluster, ProductDeployment } from "@prisma/client";
import type { Db } from "@kappa/catalog";
import type { KafkaCluster } from "../kafka/cluster.ts";
import { aclKey, producerBindings, producerClusterBindings } from "../reconcile/diff.ts";
import { auditAsWorker } from "../reconcile/entities.ts";
import { assertOwnedPrincipal, platformPrincipals } from "../reconcile/principal-guard.ts";

export async function retireDeployment(db: Db, kafka: KafkaCluster, cluster: Cluster, d: ProductDeployment & { product: { domainId: string } }, retiredTopics: "delete" | "keep"): Promise<void> {
  const producer = await db.serviceAccount.findFirst({ where: { domainId: d.product.domainId, isProducer: true }, select: { id: true, name: true, domainId: true, isProducer: true } });
  const deleted: string[] = [];
  if (producer) {
    await assertOwnedPrincipal(db, platformPrincipals(cluster.adminUser, []), producer);
    const principal = `User:${producer.name}`;
    // The cluster-wide IDEMPOTENT_WRITE stays while another product of the domain is live here.
    const liveOfDomain = await db.dataProduct.findMany({ where: { domainId: d.product.domainId, id: { not: d.productId }, status: { not: "RETIRED" } }, select: { id: true } });
    const others = await db.productDeployment.count({
      where: { environment: cluster.environment, status: { in: ["APPROVED", "ACTIVE"] }, productId: { in: liveOfDomain.map((p) => p.id) } },
    });
    const keep = new Set(others > 0 ? producerClusterBindings(principal).map(aclKey) : []);
    const ours = new Set(producerBindings(principal, [d.topicName]).map(aclKey).filter((k) => !keep.has(k)));
    const extra = (await kafka.describeAcls([principal])).filter((b) => ours.has(aclKey(b)));
    if (extra.length > 0) await kafka.deleteAcls(extra);
    deleted.push(...extra.map((b) => `${b.permission} ${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`));
  }
  let topicDeleted = false;
  if (retiredTopics === "delete" && (await kafka.describeTopics([d.topicName])).has(d.topicName)) {
    await kafka.deleteTopics([d.topicName]);
    topicDeleted = true;
  }
  await db.$transaction(async (tx) => {
    const moved = await tx.productDeployment.updateMany({ where: { id: d.id, status: { in: ["APPROVED", "ACTIVE"] } }, data: { status: "RETIRED", lastError: null } });
    if (moved.count === 0) return;
    await auditAsWorker(tx, "product.promotion.retired", "ProductDeployment", d.id, { productId: d.productId, environment: d.environment, topic: d.topicName, topicDeleted, aclsDeleted: deleted });
  });
}
