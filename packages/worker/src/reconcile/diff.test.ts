import { describe, expect, it } from "vitest";
import type { AclBinding } from "../kafka/cluster.ts";
import { backoffDelayMs, consumerBindings, diffAcls, diffTopic, isOwned, producerBindings, topicSpecFor, type Ownership } from "./diff.ts";

const product = { topicName: "orders.placed.v1", partitions: 6, retentionMs: -1n, cleanupPolicy: "delete" as const, tieredStorage: false, localRetentionMs: -2n };

describe("config mapping", () => {
  it("maps a product to Kafka's topic config names", () => {
    expect(topicSpecFor(product)).toEqual({ name: "orders.placed.v1", partitions: 6, configs: { "retention.ms": "-1", "cleanup.policy": "delete" } });
  });

  it("adds remote.storage.enable, local.retention.ms and a segment.ms within the window only for tiered products", () => {
    const spec = topicSpecFor({ ...product, retentionMs: 604800000n, tieredStorage: true, localRetentionMs: 3600000n });
    expect(spec.configs).toEqual({ "retention.ms": "604800000", "cleanup.policy": "delete", "remote.storage.enable": "true", "local.retention.ms": "3600000", "segment.ms": "3600000" });
  });

  it("keeps compact as the cleanup policy", () => {
    expect(topicSpecFor({ ...product, cleanupPolicy: "compact" }).configs["cleanup.policy"]).toBe("compact");
  });
});

describe("diffTopic", () => {
  const desired = topicSpecFor(product);

  it("creates a missing topic", () => {
    expect(diffTopic(desired, undefined).create).toEqual(desired);
  });

  it("finds nothing to do when the effective configs match (defaults included)", () => {
    const d = diffTopic(desired, { name: desired.name, partitions: 6, configs: { "retention.ms": "-1", "cleanup.policy": "delete", "segment.bytes": "1073741824" } });
    expect(d).toEqual({ create: null, growPartitionsTo: null, partitionsAboveCatalog: null, setConfigs: {}, previousConfigs: {} });
  });

  it("sets only the keys that differ and remembers the old values", () => {
    const d = diffTopic(desired, { name: desired.name, partitions: 6, configs: { "retention.ms": "604800000", "cleanup.policy": "delete" } });
    expect(d.setConfigs).toEqual({ "retention.ms": "-1" });
    expect(d.previousConfigs).toEqual({ "retention.ms": "604800000" });
  });

  it("treats a cleanup.policy list in another order as equal", () => {
    const both = { ...desired, configs: { ...desired.configs, "cleanup.policy": "compact,delete" } };
    expect(diffTopic(both, { name: desired.name, partitions: 6, configs: { "retention.ms": "-1", "cleanup.policy": "delete, compact" } }).setConfigs).toEqual({});
  });

  it("grows partitions but never shrinks them", () => {
    expect(diffTopic(desired, { name: desired.name, partitions: 3, configs: desired.configs }).growPartitionsTo).toBe(6);
    const more = diffTopic(desired, { name: desired.name, partitions: 8, configs: desired.configs });
    expect(more.growPartitionsTo).toBeNull();
    expect(more.partitionsAboveCatalog).toEqual({ actual: 8, desired: 6 });
  });

  it("sets a key the cluster does not report at all", () => {
    const tiered = topicSpecFor({ ...product, tieredStorage: true });
    expect(diffTopic(tiered, { name: desired.name, partitions: 6, configs: { "retention.ms": "-1", "cleanup.policy": "delete" } }).setConfigs).toEqual({
      "remote.storage.enable": "true",
      "local.retention.ms": "-2",
    });
  });
});

describe("ACL bindings and diff", () => {
  const producer = producerBindings("User:orders-producer", ["orders.a.v1"]);
  const consumer = consumerBindings("User:payments-app", "payments-app.", ["orders.a.v1", "orders.b.v1"]);
  const own: Ownership = {
    principals: new Set(["User:orders-producer", "User:payments-app"]),
    topics: new Set(["orders.a.v1", "orders.b.v1"]),
    groupPrefixOf: new Map([
      ["User:orders-producer", "orders-producer."],
      ["User:payments-app", "payments-app."],
    ]),
  };

  it("grants a producer WRITE and DESCRIBE per topic and IDEMPOTENT_WRITE on the cluster", () => {
    expect(producer.map((b) => `${b.operation} ${b.resourceType}:${b.resourceName}`)).toEqual(["WRITE TOPIC:orders.a.v1", "DESCRIBE TOPIC:orders.a.v1", "IDEMPOTENT_WRITE CLUSTER:kafka-cluster"]);
    expect(producer.every((b) => b.permission === "ALLOW" && b.host === "*" && b.patternType === "LITERAL")).toBe(true);
  });

  it("grants a consumer READ and DESCRIBE per topic and READ on its PREFIXED group namespace once", () => {
    expect(consumer.map((b) => `${b.operation} ${b.resourceType}:${b.patternType}:${b.resourceName}`)).toEqual([
      "READ TOPIC:LITERAL:orders.a.v1",
      "DESCRIBE TOPIC:LITERAL:orders.a.v1",
      "READ TOPIC:LITERAL:orders.b.v1",
      "DESCRIBE TOPIC:LITERAL:orders.b.v1",
      "READ GROUP:PREFIXED:payments-app.",
    ]);
  });

  it("grants nothing to an account without topics (no stray group or cluster grant)", () => {
    expect(producerBindings("User:x", [])).toEqual([]);
    expect(consumerBindings("User:x", "x.", [])).toEqual([]);
  });

  it("creates what is missing and deletes exactly the owned bindings no longer wanted", () => {
    const desired = consumer.filter((b) => b.resourceName !== "orders.b.v1");
    const foreign: AclBinding = { principal: "User:payments-app", resourceType: "TOPIC", patternType: "LITERAL", resourceName: "hr.salaries.v1", operation: "READ", permission: "ALLOW", host: "*" };
    const deny: AclBinding = { ...consumer[0]!, permission: "DENY" };
    const other: AclBinding = { ...consumer[0]!, principal: "User:ops" };
    const actual = [...consumer.slice(1), foreign, deny, other];
    const d = diffAcls(desired, actual, own);
    expect(d.create).toEqual([consumer[0]]);
    expect(d.delete.map((b) => `${b.operation} ${b.resourceName}`).sort()).toEqual(["DESCRIBE orders.b.v1", "READ orders.b.v1"]);
  });

  it("owns the account's own group prefix and cluster IDEMPOTENT_WRITE, not other groups or cluster operations", () => {
    const base = { principal: "User:payments-app", permission: "ALLOW" as const, host: "*" };
    expect(isOwned({ ...base, resourceType: "GROUP", patternType: "PREFIXED", resourceName: "payments-app.", operation: "READ" }, own)).toBe(true);
    expect(isOwned({ ...base, resourceType: "GROUP", patternType: "PREFIXED", resourceName: "ops.", operation: "READ" }, own)).toBe(false);
    expect(isOwned({ ...base, resourceType: "CLUSTER", patternType: "LITERAL", resourceName: "kafka-cluster", operation: "IDEMPOTENT_WRITE" }, own)).toBe(true);
    expect(isOwned({ ...base, resourceType: "CLUSTER", patternType: "LITERAL", resourceName: "kafka-cluster", operation: "ALTER" }, own)).toBe(false);
  });

  it("owns the transactional ids under the account's own prefix (a derived product's job), not other transactional ids", () => {
    const base = { principal: "User:payments-app", permission: "ALLOW" as const, host: "*", resourceType: "TRANSACTIONAL_ID" as const };
    expect(isOwned({ ...base, patternType: "PREFIXED", resourceName: "payments-app.", operation: "WRITE" }, own)).toBe(true);
    expect(isOwned({ ...base, patternType: "PREFIXED", resourceName: "ops.", operation: "WRITE" }, own)).toBe(false);
    expect(isOwned({ ...base, patternType: "LITERAL", resourceName: "payments-app.", operation: "WRITE" }, own)).toBe(false);
  });

  it("is a no-op when actual equals desired", () => {
    expect(diffAcls([...producer, ...consumer], [...consumer, ...producer], own)).toEqual({ create: [], delete: [] });
  });
});

describe("backoffDelayMs", () => {
  it("doubles per attempt between half and all of the step", () => {
    expect(backoffDelayMs(1, 1000, 60_000, () => 0)).toBe(500);
    expect(backoffDelayMs(1, 1000, 60_000, () => 1)).toBe(1000);
    expect(backoffDelayMs(3, 1000, 60_000, () => 0)).toBe(2000);
    expect(backoffDelayMs(3, 1000, 60_000, () => 1)).toBe(4000);
  });

  it("is capped", () => {
    expect(backoffDelayMs(30, 1000, 60_000, () => 1)).toBe(60_000);
    expect(backoffDelayMs(30, 1000, 60_000, () => 0)).toBe(30_000);
  });

  it("spreads retries with jitter", () => {
    const values = new Set(Array.from({ length: 50 }, () => backoffDelayMs(4, 1000, 60_000)));
    expect(values.size).toBeGreaterThan(10);
    for (const v of values) expect(v >= 4000 && v <= 8000).toBe(true);
  });
});
