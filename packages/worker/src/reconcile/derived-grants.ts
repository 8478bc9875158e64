/*
 * What the catalog grants the Kafka principal of a derived product's Flink job
 * (issue 34): READ and DESCRIBE on each input topic its domain may read (its
 * own live products, or products it holds a granted subscription to), READ on
 * its consumer-group prefix, WRITE and DESCRIBE on the product's own topic,
 * IDEMPOTENT_WRITE on the cluster, and WRITE and DESCRIBE on its
 * transactional-id prefix (the exactly-once sink's Kafka transactions). Every
 * place that computes an account's desired ACLs adds these (entities.ts,
 * full.ts, batch.ts, grants.ts), so drift repair keeps them.
 */
import { consumerGroupPrefix, decryptSecret, encryptSecret, type Db, type Tx } from "@kappa/catalog";
import type { AclBinding } from "../kafka/cluster.ts";
import {
  CONSUMER_TOPIC_OPERATIONS,
  consumerGroupBindings,
  GRANTED_SUBSCRIPTION_STATUSES,
  LIVE_PRODUCT_STATUSES,
  PRODUCER_TOPIC_OPERATIONS,
  producerClusterBindings,
  topicBindings,
} from "./diff.ts";

/** The job's consumer group, under its account's prefix. */
export const derivedJobGroupId = (accountName: string) => `${consumerGroupPrefix(accountName)}job`;
/** The job's transactional ids start with this (Flink appends subtask and checkpoint). */
export const derivedJobTransactionalPrefix = (accountName: string) => consumerGroupPrefix(accountName);

/** The bindings of the job accounts among `accounts`; accounts holds the ids of those that are job accounts with a live product. */
export async function derivedJobBindings(tx: Db | Tx, accounts: readonly { id: string; name: string }[]): Promise<{ bindings: AclBinding[]; accounts: Set<string> }> {
  const out = { bindings: [] as AclBinding[], accounts: new Set<string>() };
  if (accounts.length === 0) return out;
  const jobs = await tx.derivedProduct.findMany({ where: { serviceAccountId: { in: accounts.map((a) => a.id) } }, select: { productId: true, serviceAccountId: true } });
  if (jobs.length === 0) return out;
  const products = await tx.dataProduct.findMany({
    where: { id: { in: jobs.map((j) => j.productId) }, status: { in: [...LIVE_PRODUCT_STATUSES] } },
    select: { id: true, domainId: true, topicName: true, inputs: { select: { input: { select: { id: true, domainId: true, topicName: true, status: true } } } } },
  });
  const byId = new Map(products.map((p) => [p.id, p]));
  const foreignInputs = products.flatMap((p) => p.inputs.map((i) => i.input).filter((i) => i.domainId !== p.domainId).map((i) => i.id));
  const granted =
    foreignInputs.length > 0
      ? await tx.subscription.findMany({
          where: { productId: { in: foreignInputs }, environment: null, status: { in: [...GRANTED_SUBSCRIPTION_STATUSES] } },
          select: { productId: true, consumingDomainId: true },
        })
      : [];
  const readable = new Set(granted.map((s) => `${s.consumingDomainId}\u0000${s.productId}`));
  const nameOf = new Map(accounts.map((a) => [a.id, a.name]));
  for (const job of jobs) {
    const product = byId.get(job.productId);
    const name = job.serviceAccountId ? nameOf.get(job.serviceAccountId) : undefined;
    if (!product || !name) continue;
    const principal = `User:${name}`;
    const inputs = product.inputs
      .map((i) => i.input)
      .filter((i) => (LIVE_PRODUCT_STATUSES as readonly string[]).includes(i.status) && (i.domainId === product.domainId || readable.has(`${product.domainId}\u0000${i.id}`)))
      .map((i) => i.topicName)
      .sort();
    out.accounts.add(job.serviceAccountId!);
    out.bindings.push(
      ...topicBindings(principal, inputs, CONSUMER_TOPIC_OPERATIONS),
      ...(inputs.length > 0 ? consumerGroupBindings(principal, consumerGroupPrefix(name)) : []),
      ...topicBindings(principal, [product.topicName], PRODUCER_TOPIC_OPERATIONS),
      ...producerClusterBindings(principal),
      ...PRODUCER_TOPIC_OPERATIONS.map((operation): AclBinding => ({ principal, resourceType: "TRANSACTIONAL_ID", patternType: "PREFIXED", resourceName: derivedJobTransactionalPrefix(name), operation, permission: "ALLOW", host: "*" })),
    );
  }
  return out;
}

const sealContext = (accountId: string) => `derived-job:${accountId}`;

/** Seals a newly issued password for the job of the derived product this account runs, if it runs one; true when it does. */
export async function sealJobPassword(tx: Db | Tx, secretsKey: Buffer, accountId: string, password: string): Promise<boolean> {
  const { count } = await tx.derivedProduct.updateMany({ where: { serviceAccountId: accountId }, data: { jobSecretSealed: encryptSecret(secretsKey, password, sealContext(accountId)) } });
  return count > 0;
}

/** The job account's password, unsealed for the job's table definitions. */
export function unsealJobPassword(secretsKey: Buffer, accountId: string, sealed: string): string {
  return decryptSecret(secretsKey, sealed, sealContext(accountId));
}
