import { describe, expect, it } from "vitest";
import { parseWorkerEnv } from "./env.ts";

const base = {
  DATABASE_URL: "postgresql://u:p@localhost:5432/kappa",
  KAFKA_BROKERS: "127.0.0.1:9092, kafka-2:9093",
  KAFKA_ADMIN_PASSWORD: "secret",
  KAPPA_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64"),
};

describe("parseWorkerEnv", () => {
  it("applies the documented defaults", () => {
    const env = parseWorkerEnv(base);
    expect(env.KAFKA_BROKERS).toEqual(["127.0.0.1:9092", "kafka-2:9093"]);
    expect(env.KAFKA_SASL_MECHANISM).toBe("scram-sha-512");
    expect(env.KAFKA_ADMIN_USER).toBe("kappa-admin");
    expect(env.KAFKA_SSL).toBe(false);
    expect(env.WORKER_OBSERVE_INTERVAL_MS).toBe(5000);
    expect(env.WORKER_CONCURRENCY).toBe(4);
  });

  it("names every variable that is wrong", () => {
    expect(() => parseWorkerEnv({ KAFKA_BROKERS: "nohostport", KAFKA_SASL_MECHANISM: "gssapi", WORKER_POLL_MS: "-5", KAPPA_SECRETS_KEY: "short" })).toThrow(
      /DATABASE_URL[\s\S]*KAFKA_BROKERS: every entry must be host:port[\s\S]*KAFKA_SASL_MECHANISM[\s\S]*WORKER_POLL_MS[\s\S]*KAPPA_SECRETS_KEY: must be 32 bytes/,
    );
  });

  it("requires the admin password unless SASL is off", () => {
    const { KAFKA_ADMIN_PASSWORD: _, ...noPassword } = base;
    expect(() => parseWorkerEnv(noPassword)).toThrow(/KAFKA_ADMIN_PASSWORD: is required when KAFKA_SASL_MECHANISM is scram-sha-512/);
    expect(parseWorkerEnv({ ...noPassword, KAFKA_SASL_MECHANISM: "none" }).KAFKA_ADMIN_PASSWORD).toBeUndefined();
  });

  it("accepts a hex key and treats empty strings as unset", () => {
    expect(parseWorkerEnv({ ...base, KAPPA_SECRETS_KEY: "ab".repeat(32), KAFKA_SSL: "", WORKER_ID: "" }).KAFKA_SSL).toBe(false);
  });
});
