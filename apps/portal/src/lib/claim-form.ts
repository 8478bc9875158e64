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
