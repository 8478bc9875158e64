import { describe, expect, it } from "vitest";
import { KNOWN_TOPIC_CONFIGS, describeTopicConfigs, effectiveLogConfig, validateTopicConfigs } from "./configs.ts";

const keysOf = (configs: Record<string, string | null>): string[] => validateTopicConfigs(configs).map((e) => e.key);

describe("validateTopicConfigs", () => {
  it("accepts valid values for every known key", () => {
    expect(
      validateTopicConfigs({
        "retention.ms": "-1",
        "retention.bytes": "1073741824",
        "cleanup.policy": "compact, delete",
        "segment.bytes": "14",
        "segment.ms": "1",
        "max.message.bytes": "0",
        "message.timestamp.type": "LogAppendTime",
        "min.insync.replicas": "1",
        "delete.retention.ms": "0",
        "flush.messages": "1",
        "flush.ms": "0",
        "remote.storage.enable": "false",
        "local.retention.ms": "-2",
        "local.retention.bytes": "-2",
        "index.interval.bytes": "4096",
      }),
    ).toEqual([]);
  });

  it("names the key and the rule for each bad value", () => {
    const errors = validateTopicConfigs({
      "retention.ms": "-5",
      "segment.bytes": "13",
      "segment.ms": "abc",
      "max.message.bytes": "3000000000",
      "cleanup.policy": "delete,archive",
      "message.timestamp.type": "ServerTime",
      "min.insync.replicas": "0",
      "remote.storage.enable": "maybe",
      "no.such.config": "1",
    });
    const byKey = Object.fromEntries(errors.map((e) => [e.key, e.message]));
    expect(byKey["retention.ms"]).toBe("Invalid value -5 for configuration retention.ms: Value must be at least -1");
    expect(byKey["segment.bytes"]).toMatch(/at least 14/);
    expect(byKey["segment.ms"]).toMatch(/Not a number of type LONG/);
    expect(byKey["max.message.bytes"]).toMatch(/Not a number of type INT/);
    expect(byKey["cleanup.policy"]).toMatch(/archive/);
    expect(byKey["message.timestamp.type"]).toMatch(/CreateTime, LogAppendTime/);
    expect(byKey["min.insync.replicas"]).toMatch(/at least 1/);
    expect(byKey["remote.storage.enable"]).toMatch(/true or false/);
    expect(byKey["no.such.config"]).toBe("Unknown topic config name: no.such.config");
    expect(errors).toHaveLength(9);
  });

  it("applies Kafka's cross-field rules for tiered storage and local retention", () => {
    expect(keysOf({ "remote.storage.enable": "true" })).toEqual(["remote.storage.enable"]);
    expect(keysOf({ "retention.ms": "1000", "local.retention.ms": "2000" })).toEqual(["local.retention.ms"]);
    expect(keysOf({ "retention.ms": "1000", "local.retention.ms": "-1" })).toEqual(["local.retention.ms"]);
    expect(keysOf({ "retention.ms": "-1", "local.retention.ms": "-1" })).toEqual([]);
    expect(keysOf({ "retention.ms": "-1", "local.retention.ms": "5" })).toEqual([]);
    expect(keysOf({ "retention.bytes": "100", "local.retention.bytes": "101" })).toEqual(["local.retention.bytes"]);
    // Default retention.bytes is -1 (unlimited): any local limit fits.
    expect(keysOf({ "local.retention.bytes": "100" })).toEqual([]);
    expect(keysOf({ "local.retention.ms": "-3" })).toEqual(["local.retention.ms"]);
  });
});

describe("effective config and describe", () => {
  it("applies defaults under the overrides", () => {
    const cfg = effectiveLogConfig({ "cleanup.policy": "compact,delete", "message.timestamp.type": "LogAppendTime" });
    expect(cfg).toMatchObject({
      compact: true,
      deleteRetention: true,
      logAppendTime: true,
      retentionMs: 604800000,
      segmentBytes: 1073741824,
      maxMessageBytes: 1048588,
      deleteRetentionMs: 86400000,
    });
    expect(cfg.flushMessages).toBeGreaterThan(1e18);
  });

  it("describes every known key with source, default flag and type", () => {
    const rows = describeTopicConfigs({ "retention.ms": "5" });
    expect(rows.map((r) => r.name)).toEqual(KNOWN_TOPIC_CONFIGS);
    expect(rows.find((r) => r.name === "retention.ms")).toMatchObject({
      value: "5",
      isDefault: false,
      readOnly: false,
      source: 1,
      type: "LONG",
      typeCode: 5,
    });
    expect(rows.find((r) => r.name === "cleanup.policy")).toMatchObject({ value: "delete", isDefault: true, source: 5, typeCode: 7 });
  });
});
