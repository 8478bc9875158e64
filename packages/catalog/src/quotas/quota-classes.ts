/*
 * Client quota classes (issue 33): the policy's `quota-classes` rule names
 * classes of Kafka client quotas and the default class. Every service account
 * runs under one class; the worker applies it to the account's Kafka user
 * (`user` entity, AlterClientQuotas) on every environment where the account
 * exists. This round, every account runs under the default class: products
 * and subscriptions cannot choose another yet.
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

/**
 * The quota in force for each of these accounts (no permission check: callers
 * check visibility of the account first, the worker needs every account).
 */
export async function quotasOfServiceAccounts(db: Db | Tx, serviceAccountIds: readonly string[]): Promise<Map<string, QuotaInForce>> {
  const classes = quotaClassesFromPolicy((await activePolicy(db)).document);
  return new Map(serviceAccountIds.map((id) => [id, quotaOfClass(classes, null)]));
}
