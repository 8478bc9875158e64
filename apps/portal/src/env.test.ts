import { describe, expect, it } from "vitest";
import { parseEnv } from "./env";

const good = { DATABASE_URL: "postgresql://u:p@localhost:5432/kappa", NEXTAUTH_SECRET: "0123456789abcdef0123", NEXTAUTH_URL: "http://localhost:3000" };

describe("parseEnv", () => {
  it("parses a minimal configuration with SSO off", () => {
    const env = parseEnv(good);
    expect(env.DATABASE_URL).toBe(good.DATABASE_URL);
    expect(env.KAPPA_DEMO_MODE).toBe(false);
    expect(env.OIDC_ISSUER).toBeUndefined();
  });

  it("names every missing or bad variable", () => {
    expect(() => parseEnv({ ...good, DATABASE_URL: "mysql://x@y/z", NEXTAUTH_SECRET: undefined })).toThrow(/DATABASE_URL[\s\S]*NEXTAUTH_SECRET|NEXTAUTH_SECRET[\s\S]*DATABASE_URL/);
  });

  it("says a missing variable is required", () => {
    expect(() => parseEnv({ ...good, NEXTAUTH_URL: undefined })).toThrow("NEXTAUTH_URL: is required");
  });

  it("refuses half-configured SSO, naming what is missing", () => {
    expect(() => parseEnv({ ...good, OIDC_ISSUER: "https://id.example.com" })).toThrow(/OIDC_CLIENT_ID[\s\S]*OIDC_CLIENT_SECRET/);
  });

  it("reads demo mode flags", () => {
    expect(parseEnv({ ...good, KAPPA_DEMO_MODE: "1" }).KAPPA_DEMO_MODE).toBe(true);
    expect(parseEnv({ ...good, KAPPA_DEMO_MODE: "false" }).KAPPA_DEMO_MODE).toBe(false);
  });

  it("shows 127.0.0.1:9092 in connection snippets unless KAFKA_BOOTSTRAP_DISPLAY says otherwise", () => {
    expect(parseEnv(good).KAFKA_BOOTSTRAP_DISPLAY).toBe("127.0.0.1:9092");
    expect(parseEnv({ ...good, KAFKA_BOOTSTRAP_DISPLAY: "kafka-1.example.com:9093,kafka-2.example.com:9093" }).KAFKA_BOOTSTRAP_DISPLAY).toBe("kafka-1.example.com:9093,kafka-2.example.com:9093");
    expect(() => parseEnv({ ...good, KAFKA_BOOTSTRAP_DISPLAY: "no port here" })).toThrow("KAFKA_BOOTSTRAP_DISPLAY: must be host:port");
  });

  it("accepts a 32-byte KAPPA_SECRETS_KEY in hex or base64 and names a wrong one", () => {
    expect(parseEnv(good).KAPPA_SECRETS_KEY).toBeUndefined();
    expect(parseEnv({ ...good, KAPPA_SECRETS_KEY: "ab".repeat(32) }).KAPPA_SECRETS_KEY).toBe("ab".repeat(32));
    expect(parseEnv({ ...good, KAPPA_SECRETS_KEY: Buffer.alloc(32, 7).toString("base64") }).KAPPA_SECRETS_KEY).toBeDefined();
    expect(() => parseEnv({ ...good, KAPPA_SECRETS_KEY: "too-short" })).toThrow("KAPPA_SECRETS_KEY: must be 32 bytes");
  });
});
