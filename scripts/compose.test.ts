import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { APACHE_KAFKA_VERSION } from "@kappa/engines";
import { DEFAULT_WORKER_MAX_HEAP_MB, WORKER_MALLOC_ARENA_MAX, workerNodeFlags } from "@kappa/worker/runtime";

const root = path.resolve(import.meta.dirname, "..");

/** Validates docker-compose.yml offline with Debian's docker-compose (installed by .ci/run). */
// Each test runs docker-compose (a Python program, ~2 s a run, more on a loaded machine): more than the default 5 s.
describe("docker-compose.yml", { timeout: 30_000 }, () => {
  const config = (env: Record<string, string>) =>
    execFileSync("docker-compose", ["config"], { cwd: root, env: { PATH: process.env.PATH ?? "", ...env }, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });

  it("is valid and wires the worker, not the portal, to the Kafka admin account", () => {
    const out = config({ KAFKA_ADMIN_PASSWORD: "admin-secret", KAPPA_SECRETS_KEY: "k", NEXTAUTH_SECRET: "s".repeat(32) });
    expect(out).toMatch(/services:\n(.|\n)*kafka-1:(.|\n)*portal:(.|\n)*postgres:(.|\n)*worker:/);
    const portal = out.slice(out.indexOf("\n  portal:"), out.indexOf("\n  postgres:"));
    expect(portal).not.toContain("admin-secret");
    const worker = out.slice(out.indexOf("\n  worker:"));
    expect(worker).toContain("KAFKA_ADMIN_PASSWORD: admin-secret");
  });

  it("runs the worker with the heap cap and malloc arenas npm start uses (packages/worker/src/runtime.ts)", () => {
    const env = { KAFKA_ADMIN_PASSWORD: "admin-secret", KAPPA_SECRETS_KEY: "k", NEXTAUTH_SECRET: "s".repeat(32) };
    const worker = (out: string) => out.slice(out.indexOf("\n  worker:"));
    // The command's node flags, one list item per line in `docker-compose config`.
    const flags = (out: string) => [...worker(out).matchAll(/^\s+- (--\S+)$/gm)].map((m) => m[1]);
    const defaults = config(env);
    expect(flags(defaults)).toEqual([...workerNodeFlags(DEFAULT_WORKER_MAX_HEAP_MB), "--import"]);
    expect(worker(defaults)).toMatch(new RegExp(`MALLOC_ARENA_MAX: ['"]?${WORKER_MALLOC_ARENA_MAX}['"]?\n`));
    expect(flags(config({ ...env, WORKER_MAX_HEAP_MB: "512" }))).toEqual([...workerNodeFlags(512), "--import"]);
  });

  it("gives the worker and the portal their own least-privilege database roles (issue 8, finding 9)", () => {
    const out = config({ KAFKA_ADMIN_PASSWORD: "admin-secret", KAPPA_SECRETS_KEY: "k", NEXTAUTH_SECRET: "s".repeat(32) });
    const worker = out.slice(out.indexOf("\n  worker:"));
    expect(worker).toMatch(/DATABASE_URL: postgresql:\/\/kappa_worker:/);
    const portal = out.slice(out.indexOf("\n  portal:"), out.indexOf("\n  postgres:"));
    // The portal container migrates as the owner; its Next.js process gets PORTAL_DATABASE_URL (scripts/start.ts).
    expect(portal).toMatch(/PORTAL_DATABASE_URL: postgresql:\/\/kappa_portal:/);
    expect(out).toContain("/docker-entrypoint-initdb.d");
  });

  it("runs the Apache Kafka release and broker settings the tests run (packages/engines): 3 KRaft nodes, the worker on all three", () => {
    const out = config({ KAFKA_ADMIN_PASSWORD: "admin-secret", KAPPA_SECRETS_KEY: "k", NEXTAUTH_SECRET: "s".repeat(32) });
    const pom = readFileSync(path.join(root, "packages/engines/apache-kafka/pom.xml"), "utf8");
    expect(pom).toContain(`<kafka.version>${APACHE_KAFKA_VERSION}</kafka.version>`);
    for (const node of [1, 2, 3]) {
      const service = out.slice(out.indexOf(`\n  kafka-${node}:`));
      expect(service).toContain(`image: apache/kafka:${APACHE_KAFKA_VERSION}`);
      expect(service).toMatch(/packages\/engines\/apache-kafka\/cluster\.properties:\/etc\/kappa\/cluster\.properties:ro/);
      expect(service).toMatch(new RegExp(`KAFKA_NODE_ID: ['"]?${node}['"]?`));
    }
    const worker = out.slice(out.indexOf("\n  worker:"));
    expect(worker).toContain("KAFKA_BROKERS: kafka-1:9092,kafka-2:9092,kafka-3:9092");
    const start = readFileSync(path.join(root, "docker/kafka/start.sh"), "utf8");
    expect(start).toContain("cat /etc/kappa/cluster.properties");
  });

  it("refuses to start without the required secrets", () => {
    expect(() => config({})).toThrow(/set (KAFKA_ADMIN_PASSWORD|KAPPA_SECRETS_KEY|NEXTAUTH_SECRET)/);
  });
});
