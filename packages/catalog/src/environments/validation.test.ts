import { describe, expect, it } from "vitest";
import { checkEnvironmentBounds } from "./deployments.ts";
import { registerClusterInput, updateClusterInput } from "./validation.ts";

const sasl = { environment: "prod", bootstrap: "kafka-1:9093, kafka-2:9093", securityProtocol: "SASL_SSL", saslMechanism: "scram-sha-512", adminUser: "kappa-admin", adminPassword: "s3cret" };

function problems(result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) {
  return Object.fromEntries((result.error?.issues ?? []).map((i) => [i.path.join("."), i.message]));
}

describe("cluster registration input", () => {
  it("normalises the bootstrap list and keeps the SASL settings", () => {
    expect(registerClusterInput.parse(sasl)).toMatchObject({ bootstrap: "kafka-1:9093,kafka-2:9093", saslMechanism: "scram-sha-512" });
  });

  it("refuses bad names, bootstrap entries without a port or with a port out of range, and unknown fields", () => {
    expect(problems(registerClusterInput.safeParse({ ...sasl, environment: "Prod!" }))).toHaveProperty("environment");
    expect(problems(registerClusterInput.safeParse({ ...sasl, bootstrap: "kafka-1" })).bootstrap).toMatch(/host:port/);
    expect(problems(registerClusterInput.safeParse({ ...sasl, bootstrap: "kafka-1:70000" })).bootstrap).toMatch(/1 to 65535/);
    expect(registerClusterInput.safeParse({ ...sasl, primary: true }).success).toBe(false);
  });

  it("asks SASL protocols for a mechanism, a user and a password, and refuses a mechanism without SASL", () => {
    const missing = problems(registerClusterInput.safeParse({ environment: "prod", bootstrap: "k:9093", securityProtocol: "SASL_PLAINTEXT" }));
    expect(Object.keys(missing).sort()).toEqual(["adminPassword", "adminUser", "saslMechanism"]);
    expect(problems(registerClusterInput.safeParse({ environment: "dev", bootstrap: "k:9092", securityProtocol: "PLAINTEXT", saslMechanism: "plain" }))).toHaveProperty("saslMechanism");
    expect(registerClusterInput.safeParse({ environment: "dev", bootstrap: "k:9092", securityProtocol: "PLAINTEXT" }).success).toBe(true);
    // Changing a cluster keeps its stored password when none is given.
    expect(updateClusterInput.safeParse({ bootstrap: "k:9093", securityProtocol: "SASL_SSL", saslMechanism: "plain", adminUser: "a" }).success).toBe(true);
  });
});

describe("environment bounds", () => {
  const prod = { environment: "prod", maxPartitions: 4, minRetentionMs: 86_400_000n, tieredStorage: null };
  it("refuses more partitions or less retention than the environment allows, naming each field", () => {
    expect(() => checkEnvironmentBounds(prod, { partitions: 6, retentionMs: 3_600_000n })).toThrow(expect.objectContaining({ fields: { partitions: [expect.stringContaining("at most 4")], retentionMs: [expect.stringContaining("at least 86400000 ms")] } }));
  });
  it("accepts a product within them, and keep-forever retention meets any minimum", () => {
    expect(() => checkEnvironmentBounds(prod, { partitions: 4, retentionMs: -1n })).not.toThrow();
    expect(() => checkEnvironmentBounds({ environment: "qa", maxPartitions: null, minRetentionMs: null, tieredStorage: null }, { partitions: 500, retentionMs: 1n })).not.toThrow();
  });
  it("refuses a tiered product where the worker found the brokers without tiered storage, and only there", () => {
    const noTiers = { environment: "edge", maxPartitions: null, minRetentionMs: null, tieredStorage: false };
    expect(() => checkEnvironmentBounds(noTiers, { partitions: 1, retentionMs: 1n, tieredStorage: true })).toThrow(expect.objectContaining({ fields: { tieredStorage: [expect.stringContaining("The edge environment has no tiered storage")] } }));
    expect(() => checkEnvironmentBounds(noTiers, { partitions: 1, retentionMs: 1n, tieredStorage: false })).not.toThrow();
    expect(() => checkEnvironmentBounds({ ...noTiers, tieredStorage: null }, { partitions: 1, retentionMs: 1n, tieredStorage: true })).not.toThrow();
  });
});
