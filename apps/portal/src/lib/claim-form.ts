import { durationFromMs, emptyFormValues, RETENTION_PRESETS, type ProductFormValues } from "./product-form";

/** A readable product name from a topic name: `legacy.order-export` → "Order Export". */
export function nameFromTopic(topic: string): string {
  const last = topic.split(".").filter((s) => !/^v\d+$/.test(s)).pop() ?? topic;
  return last.replace(/[-_]+/g, " ").replace(/\b\w/g, (c) => c.toUpperCase()).trim() || topic;
}

/** The product form prefilled from the topic as it is on the cluster. */
export function claimFormValues(domainId: string, contactEmail: string, topic: string, partitions: number, configs: Record<string, string>): ProductFormValues {
  const values = emptyFormValues(domainId, contactEmail);
  const retention = Number(configs["retention.ms"]);
  return {
    ...values,
    name: nameFromTopic(topic),
    partitions: String(partitions),
    retention: Number.isFinite(retention) && configs["retention.ms"] !== undefined ? durationFromMs(retention, RETENTION_PRESETS) : values.retention,
    cleanupPolicy: configs["cleanup.policy"] === "compact" ? "compact" : "delete",
  };
}

/** Why an owner is not offered "Infer from sample records" on an unclaimed topic (issue 30, finding 5). */
export const SAMPLING_REFUSED =
  "Only platform admins infer a schema from a topic's records: they may hold data no grant covers (personal data in keys, say). Paste or upload the schema. Once you have claimed the topic, a platform admin can allow your claim to be sampled; you then infer the schema on the claim's edit page.";

/** Why a claim's owners are not (yet) offered inference on its edit page. */
export const CLAIM_SAMPLING_PENDING =
  "Inferring the schema from the topic's records needs a platform admin's approval for this claim: they may hold data no grant covers. Ask an admin to allow sampling (on the topic's claim page), or paste the schema.";
