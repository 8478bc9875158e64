import type { ProductStatus, SubscriptionStatus } from "@prisma/client";
import { InvalidTransitionError } from "./errors.ts";

/**
 * The product lifecycle. APPROVED → PROVISIONING → ACTIVE are driven by the
 * worker; the rest by people. REJECTED products can be edited (back to DRAFT)
 * and submitted again.
 */
export const PRODUCT_TRANSITIONS = {
  submit: { from: ["DRAFT", "REJECTED"], to: "IN_REVIEW" },
  approve: { from: ["IN_REVIEW"], to: "APPROVED" },
  reject: { from: ["IN_REVIEW"], to: "REJECTED" },
  startProvisioning: { from: ["APPROVED"], to: "PROVISIONING" },
  activate: { from: ["APPROVED", "PROVISIONING"], to: "ACTIVE" },
  deprecate: { from: ["ACTIVE"], to: "DEPRECATED" },
  retire: { from: ["DEPRECATED"], to: "RETIRED" },
} as const satisfies Record<string, { from: readonly ProductStatus[]; to: ProductStatus }>;
export type ProductAction = keyof typeof PRODUCT_TRANSITIONS;

export const SUBSCRIPTION_TRANSITIONS = {
  approve: { from: ["REQUESTED"], to: "APPROVED" },
  reject: { from: ["REQUESTED"], to: "REJECTED" },
  activate: { from: ["APPROVED"], to: "ACTIVE" },
  revoke: { from: ["APPROVED", "ACTIVE"], to: "REVOKED" },
} as const satisfies Record<string, { from: readonly SubscriptionStatus[]; to: SubscriptionStatus }>;
export type SubscriptionAction = keyof typeof SUBSCRIPTION_TRANSITIONS;

/** Product states in which a subscription may be requested. */
export const SUBSCRIBABLE_STATUSES: readonly ProductStatus[] = ["APPROVED", "PROVISIONING", "ACTIVE"];

/** Product states in which every field may still change (nothing exists on Kafka yet). */
export const FULLY_EDITABLE_STATUSES: readonly ProductStatus[] = ["DRAFT", "REJECTED"];
/** Product states in which descriptive metadata may change. */
export const METADATA_EDITABLE_STATUSES: readonly ProductStatus[] = ["DRAFT", "REJECTED", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];

export function nextProductStatus(current: ProductStatus, action: ProductAction): ProductStatus {
  const rule = PRODUCT_TRANSITIONS[action];
  if (!(rule.from as readonly ProductStatus[]).includes(current)) {
    throw new InvalidTransitionError("product", current, action);
  }
  return rule.to;
}

export function nextSubscriptionStatus(current: SubscriptionStatus, action: SubscriptionAction): SubscriptionStatus {
  const rule = SUBSCRIPTION_TRANSITIONS[action];
  if (!(rule.from as readonly SubscriptionStatus[]).includes(current)) {
    throw new InvalidTransitionError("subscription", current, action);
  }
  return rule.to;
}
