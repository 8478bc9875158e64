import { z } from "zod";

/*
 * The price list and the chargeback rule of the policy document (issue 33).
 * Pure (zod only): the policy document imports it, and so does the browser.
 * A GB is 10^9 bytes; a GB-month is one GB kept for every hour of the month.
 */

const price = (label: string) => z.number({ message: `${label} must be a number.` }).min(0, `${label} must not be negative.`).max(1_000_000, `${label} must be at most 1,000,000.`);

export const pricesSection = z.object({
  /** ISO 4217 code, e.g. EUR. */
  currency: z.string().regex(/^[A-Z]{3}$/, "currency is a three-letter ISO 4217 code, e.g. EUR."),
  /** Per GB-month of local (hot) log storage. */
  hotStorageGbMonth: price("hotStorageGbMonth"),
  /** Per GB-month of remote (tiered) storage. */
  tieredStorageGbMonth: price("tieredStorageGbMonth"),
  /** Per GB written to the product's topic. */
  gbIn: price("gbIn"),
  /** Per GB read by consumers. */
  gbOut: price("gbOut"),
  /** Per partition and hour. */
  partitionHour: price("partitionHour"),
});
export type Prices = z.output<typeof pricesSection>;

export const CHARGEBACK_RULES = ["consumers", "producer"] as const;
export type ChargebackRule = (typeof CHARGEBACK_RULES)[number];

export const chargebackSection = z.object({
  /** consumers: a product's cost is shared by its consuming domains in proportion to what each read (what nobody read, or
   *  reads by no subscription, stays with the producer); producer: the producing domain bears all of it. */
  rule: z.enum(CHARGEBACK_RULES, { message: `chargeback.rule is one of ${CHARGEBACK_RULES.join(", ")}.` }),
});
export type Chargeback = z.output<typeof chargebackSection>;

/** What a policy version without a price list (stored before issue 33) is read with: the committed default's figures. */
export const DEFAULT_PRICES: Prices = { currency: "EUR", hotStorageGbMonth: 0.1, tieredStorageGbMonth: 0.023, gbIn: 0.05, gbOut: 0.05, partitionHour: 0.0015 };
export const DEFAULT_CHARGEBACK: Chargeback = { rule: "consumers" };
