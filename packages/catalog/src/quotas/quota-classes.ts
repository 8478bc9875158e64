/*
 * Client quota classes (issue 33): the policy's `quota-classes` rule names
 * classes of Kafka client quotas and the default class. Every service account
 * runs under one class; the worker applies it to the account's Kafka user
 * (`user` entity, AlterClientQuotas) on every environment where the account
 * exists. A product's owners choose its class (the domain's producer account
 * runs under the largest class of the domain's live products) and a
 * subscription asks for one (a consuming account runs under the largest class
 * of its live subscriptions); a class larger than the default waits for
 * governance (choose-quota-class.ts). An account with no live use has no quota:
 * the worker removes it from the cluster.
 */
import type { Db, Tx } from "../db.ts";
import type { PolicyDocument } from "../policies/document.ts";
import { activePolicy } from "../policies/store.ts";

export interface QuotaClassValues {
  producer_byte_rate: number;
  consumer_byte_rate: number;
  request_percentage: number;
}

export interface QuotaClasses {
  default: string;
  classes: Record<string, QuotaClassValues>;
}

/** What GET /api/v1/service-accounts/{id} answers as `quota`. */
export interface QuotaInForce {
  class: string;
  producerByteRate: number;
  consumerByteRate: number;
  requestPercentage: number;
}

/** The classes when the policy in force has no `quota-classes` rule (a catalog whose policy predates them): the committed default's. */
export const DEFAULT_QUOTA_CLASSES: QuotaClasses = {
  default: "standard",
  classes: {
    standard: { producer_byte_rate: 5_242_880, consumer_byte_rate: 10_485_760, request_percentage: 50 },
    bulk: { producer_byte_rate: 52_428_800, consumer_byte_rate: 104_857_600, request_percentage: 200 },
  },
};

/** The first enabled `quota-classes` rule of the policy; the platform default without one. */
export function quotaClassesFromPolicy(document: PolicyDocument): QuotaClasses {
  const rule = document.rules.find((r) => r.enabled && r.check === "quota-classes");
  if (!rule || rule.check !== "quota-classes") return DEFAULT_QUOTA_CLASSES;
  return { default: rule.params.default, classes: rule.params.classes };
}

/** The quota of a class; an unknown or absent class (e.g. removed from the policy) falls back to the default. */
export function quotaOfClass(classes: QuotaClasses, chosen: string | null): QuotaInForce {
  const name = chosen !== null && Object.hasOwn(classes.classes, chosen) ? chosen : classes.default;
  const v = classes.classes[name] ?? DEFAULT_QUOTA_CLASSES.classes.standard!;
  return { class: name, producerByteRate: v.producer_byte_rate, consumerByteRate: v.consumer_byte_rate, requestPercentage: v.request_percentage };
}

/** A class is larger than the default when any of its three values exceeds the default's: choosing it needs governance. */
export function isLargerThanDefault(classes: QuotaClasses, name: string): boolean {
  const c = classes.classes[name];
  const d = classes.classes[classes.default];
  if (!c || !d) return false;
  return c.producer_byte_rate > d.producer_byte_rate || c.consumer_byte_rate > d.consumer_byte_rate || c.request_percentage > d.request_percentage;
}

/** The larger of two quotas for a producer (producer rate first) or a consumer (consumer rate first). */
function larger(a: QuotaInForce, b: QuotaInForce, producer: boolean): QuotaInForce {
  const key = (q: QuotaInForce) => (producer ? [q.producerByteRate, q.consumerByteRate, q.requestPercentage] : [q.consumerByteRate, q.producerByteRate, q.requestPercentage]);
  const [ka, kb] = [key(a), key(b)];
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i]! > kb[i]! ? a : b;
  return a.class <= b.class ? a : b;
}

/** Product statuses whose topic and producer grants exist (the worker's LIVE_PRODUCT_STATUSES). */
export const QUOTA_LIVE_PRODUCT_STATUSES = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/**
 * The quota each account's Kafka user should carry, or null when the account has
 * no live use (a producer account whose domain has no live product, a consuming
 * account without an APPROVED or ACTIVE subscription): the worker removes its
 * quota then. No permission check: the worker needs every account.
 */
export async function desiredQuotasOfServiceAccounts(db: Db | Tx, serviceAccountIds: readonly string[]): Promise<Map<string, QuotaInForce | null>> {
  const out = new Map<string, QuotaInForce | null>();
  if (serviceAccountIds.length === 0) return out;
  const [policy, accounts] = await Promise.all([
    activePolicy(db),
    db.serviceAccount.findMany({ where: { id: { in: [...serviceAccountIds] } }, select: { id: true, domainId: true, isProducer: true } }),
  ]);
  const classes = quotaClassesFromPolicy(policy.document);
  const producerDomains = accounts.filter((a) => a.isProducer).map((a) => a.domainId);
  const [products, subscriptions] = await Promise.all([
    producerDomains.length > 0
      ? db.dataProduct.findMany({ where: { domainId: { in: producerDomains }, status: { in: [...QUOTA_LIVE_PRODUCT_STATUSES] } }, select: { domainId: true, quotaClass: true } })
      : [],
    db.subscription.findMany({ where: { serviceAccountId: { in: accounts.filter((a) => !a.isProducer).map((a) => a.id) }, status: { in: ["APPROVED", "ACTIVE"] } }, select: { serviceAccountId: true, quotaClass: true } }),
  ]);
  for (const a of accounts) {
    const chosen = a.isProducer ? products.filter((p) => p.domainId === a.domainId).map((p) => p.quotaClass) : subscriptions.filter((s) => s.serviceAccountId === a.id).map((s) => s.quotaClass);
    out.set(a.id, chosen.length === 0 ? null : chosen.map((c) => quotaOfClass(classes, c)).reduce((x, y) => larger(x, y, a.isProducer)));
  }
  for (const id of serviceAccountIds) if (!out.has(id)) out.set(id, null);
  return out;
}

/**
 * The quota in force for each of these accounts, as the API shows it: the
 * class of its live uses, the default class for an account with none (no
 * permission check: callers check visibility of the account first).
 */
export async function quotasOfServiceAccounts(db: Db | Tx, serviceAccountIds: readonly string[]): Promise<Map<string, QuotaInForce>> {
  const classes = quotaClassesFromPolicy((await activePolicy(db)).document);
  const desired = await desiredQuotasOfServiceAccounts(db, serviceAccountIds);
  return new Map(serviceAccountIds.map((id) => [id, desired.get(id) ?? quotaOfClass(classes, null)]));
}
