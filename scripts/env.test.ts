import { describe, expect, it } from "vitest";
import { parseStartConfig } from "./env.ts";

describe("start-up configuration", () => {
  it("defaults to the embedded, demo setup", () => {
    const config = parseStartConfig({});
    expect(config).toMatchObject({ PORT: 3000, KAFKA_PORT: 9092, KAFKA_ADMIN_USER: "kappa-admin", demoMode: true, embeddedKafka: true, startWorker: true });
    expect(config.dataDir.endsWith(".data")).toBe(true);
  });

  it("names every bad variable", () => {
    const attempt = () => parseStartConfig({ PORT: "70000", DATABASE_URL: "mysql://x", KAFKA_BROKERS: "no-port" });
    expect(attempt).toThrow(/^Invalid configuration:/);
    expect(attempt).toThrow(/\n {2}PORT: Too big/);
    expect(attempt).toThrow(/\n {2}DATABASE_URL: must start with postgresql:\/\//);
    expect(attempt).toThrow(/\n {2}KAFKA_BROKERS: must be host:port/);
    expect(() => parseStartConfig({ KAPPA_DEMO_MODE: "yes" })).toThrow(/KAPPA_DEMO_MODE: must be true or false/);
  });

  it("runs Apache Kafka instead of the embedded broker with KAPPA_KAFKA=apache, and refuses it beside KAFKA_BROKERS", () => {
    expect(parseStartConfig({}).kafkaEngine).toBe("embedded");
    expect(parseStartConfig({ KAPPA_KAFKA: "apache" })).toMatchObject({ kafkaEngine: "apache", embeddedKafka: true, prodEnvironment: true });
    expect(parseStartConfig({ KAFKA_BROKERS: "k:9092", KAFKA_ADMIN_PASSWORD: "x".repeat(8), KAPPA_SECRETS_KEY: "k" }).kafkaEngine).toBeNull();
    expect(() => parseStartConfig({ KAPPA_KAFKA: "apache", KAFKA_BROKERS: "k:9092" })).toThrow(/KAPPA_KAFKA: apache starts a local Apache Kafka cluster, but KAFKA_BROKERS points at one/);
    expect(() => parseStartConfig({ KAPPA_KAFKA: "confluent" })).toThrow(/KAPPA_KAFKA: must be embedded or apache/);
  });

  it("runs a local Flink with the worker unless KAPPA_FLINK=off or a gateway of one's own is named; the two Flink URLs go together", () => {
    expect(parseStartConfig({})).toMatchObject({ localFlink: true, FLINK_PORT: 8081, FLINK_GATEWAY_PORT: 8083 });
    expect(parseStartConfig({ KAPPA_FLINK: "off" }).localFlink).toBe(false);
    expect(parseStartConfig({ KAPPA_START_WORKER: "false" }).localFlink).toBe(false);
    expect(parseStartConfig({ FLINK_SQL_GATEWAY_URL: "http://gw:8083", FLINK_REST_URL: "http://jm:8081" }).localFlink).toBe(false);
    expect(() => parseStartConfig({ FLINK_SQL_GATEWAY_URL: "http://gw:8083" })).toThrow(/FLINK_REST_URL: FLINK_SQL_GATEWAY_URL and FLINK_REST_URL go together/);
    expect(() => parseStartConfig({ FLINK_REST_URL: "http://jm:8081" })).toThrow(/FLINK_SQL_GATEWAY_URL: FLINK_SQL_GATEWAY_URL and FLINK_REST_URL go together/);
    expect(() => parseStartConfig({ FLINK_GATEWAY_PORT: "8081" })).toThrow(/FLINK_GATEWAY_PORT: must differ from FLINK_PORT/);
    expect(() => parseStartConfig({ KAPPA_FLINK: "yes" })).toThrow(/KAPPA_FLINK: must be on or off/);
  });

  it("treats empty strings as unset", () => {
    expect(parseStartConfig({ DATABASE_URL: "", PORT: "" }).demoMode).toBe(true);
  });

  it("requires real secrets outside demo mode, but no Kafka password when the worker runs elsewhere", () => {
    const production = { DATABASE_URL: "postgresql://u:p@db/kappa", KAFKA_BROKERS: "kafka:9092" };
    expect(() => parseStartConfig(production)).toThrow(/KAFKA_ADMIN_PASSWORD: is required outside demo mode[\s\S]*KAPPA_SECRETS_KEY: is required/);
    expect(parseStartConfig({ ...production, KAPPA_SECRETS_KEY: "k", KAPPA_START_WORKER: "false" })).toMatchObject({ demoMode: false, startWorker: false, embeddedKafka: false });
  });
});
