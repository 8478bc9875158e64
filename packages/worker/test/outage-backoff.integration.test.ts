import { createConnection, createServer, type Server, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPrismaClient, type Db } from "@kappa/catalog";
import { approvedProduct, openTestDatabase, seedPeople, startTestBroker, startWorker, waitFor, type TestBroker } from "./helpers.ts";

/*
 * Issue 8, finding 13: with PostgreSQL stopped the worker polled it every
 * 500 ms forever. Here the real database sits behind a TCP relay that the test
 * can "stop" (every connection, open or new, is cut); the worker must back
 * off (capped exponential with jitter), say in its health which dependency is
 * down, and recover by itself when it comes back. Kafka going away is
 * reported the same way.
 */
class Relay {
  private server: Server | null = null;
  private sockets = new Set<Socket>();
  down = false;
  /** Connections refused while down: the worker's attempts to reach the database. */
  refused: number[] = [];
  port = 0;

  constructor(private readonly target: { host: string; port: number }) {}

  async start(): Promise<void> {
    this.server = createServer((client) => {
      if (this.down) {
        this.refused.push(Date.now());
        client.destroy();
        return;
      }
      const upstream = createConnection(this.target);
      this.sockets.add(client).add(upstream);
      const drop = () => {
        client.destroy();
        upstream.destroy();
        this.sockets.delete(client);
        this.sockets.delete(upstream);
      };
      client.on("error", drop).on("close", drop);
      upstream.on("error", drop).on("close", drop);
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server?.listen(0, "127.0.0.1", () => resolve()));
    const address = this.server.address();
    this.port = typeof address === "object" && address ? address.port : 0;
  }

  stop(): void {
    this.down = true;
    for (const s of this.sockets) s.destroy();
    this.sockets.clear();
  }

  resume(): void {
    this.down = false;
  }

  async close(): Promise<void> {
    this.stop();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

let broker: TestBroker;
let database: Awaited<ReturnType<typeof openTestDatabase>>;
let relay: Relay;
let db: Db;
let running: ReturnType<typeof startWorker>;

beforeAll(async () => {
  broker = await startTestBroker();
  database = await openTestDatabase();
  const url = new URL(database.url);
  relay = new Relay({ host: url.hostname, port: Number(url.port) });
  await relay.start();
  url.port = String(relay.port);
  db = createPrismaClient(url.toString());
  // Polling every 50 ms: without backoff an outage of a few seconds means dozens of attempts.
  running = startWorker(db, broker.bootstrap, { pollMs: 50, outageBackoffBaseMs: 200, outageBackoffMaxMs: 1_600, observeIntervalMs: 200 });
  await running.start();
});

afterAll(async () => {
  await running?.stop().catch(() => undefined);
  await db?.$disconnect();
  await relay?.close();
  await database?.dispose();
  await broker?.cleanup().catch(() => undefined);
});

describe("dependency outages", () => {
  it("backs off while PostgreSQL is unreachable, says so in its health, and recovers by itself", async () => {
    const people = await seedPeople(database.db);
    relay.stop();
    const downSince = Date.now();
    const health = await waitFor(() => {
      const h = running.worker.health();
      return h.dependencies.database.failures >= 5 ? h : null;
    }, 20_000, "five failed attempts to reach the database");
    const elapsed = Date.now() - downSince;
    expect(health.status).toBe("degraded");
    expect(health.dependencies.database.status).toBe("down");
    expect(health.dependencies.kafka.status).toBe("up");
    expect(health.reasons.join(" ")).toMatch(/database \(PostgreSQL\) unreachable since/);
    // Delays 100–200, 200–400, 400–800, 800–1600 ms between the five failures: at least ~1.5 s,
    // where polling every 50 ms would have failed five times in a quarter of a second.
    expect(elapsed).toBeGreaterThanOrEqual(1_400);
    // Each further wait is capped: the next try is at most 1.6 s away.
    expect(health.dependencies.database.retryInMs ?? Infinity).toBeLessThanOrEqual(1_600);
    // Every attempt the relay saw was one poll; no tight loop elsewhere (observation and reconcile wait too).
    const gaps = relay.refused.slice(1).map((t, i) => t - relay.refused[i]!);
    expect(relay.refused.length).toBeLessThan(40);
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(400);

    // Work queued during the outage is done once the database is back.
    relay.resume();
    const product = await approvedProduct(database.db, people);
    // (This broker has no authorizer, so only the topic step is checked.)
    await waitFor(async () => (await database.db.provisioningTask.findFirst({ where: { entityId: product.id, kind: "CREATE_TOPIC", status: "DONE" } })) !== null, 20_000, "the product's topic step after the outage");
    expect((await running.cluster.describeTopics([product.topicName])).has(product.topicName)).toBe(true);
    await waitFor(() => running.worker.health().dependencies.database.status === "up", 10_000, "the database to be reported up");
    expect(running.worker.health().reasons.join(" ")).not.toMatch(/unreachable/);
    // Transactions cut mid-flight gave their pooled connections back (catalog db.ts works
    // around Prisma leaking them): the pool still closes, instead of waiting forever.
    await running.stop();
    const closed = await Promise.race([db.$disconnect().then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
    expect(closed).toBe(true);
    db = createPrismaClient(`postgresql://${new URL(database.url).username}:${new URL(database.url).password}@127.0.0.1:${relay.port}${new URL(database.url).pathname}`);
    running = startWorker(db, broker.bootstrap, { pollMs: 50, outageBackoffBaseMs: 200, outageBackoffMaxMs: 1_600, observeIntervalMs: 200 });
    await running.start();
  });

  it("reports Kafka as the dependency that is down, in /healthz terms and in WorkerInstance.status", async () => {
    await broker.stop();
    await running.worker.observeNow();
    await waitFor(() => running.worker.health().dependencies.kafka.status === "down", 20_000, "Kafka to be reported down");
    const h = running.worker.health();
    expect(h.dependencies.database.status).toBe("up");
    expect(h.reasons.join(" ")).toMatch(/Kafka unreachable since/);
    // Observation backs off too: while waiting, a cycle is skipped, not retried.
    const failures = h.dependencies.kafka.failures;
    await running.worker.observeNow();
    if (running.worker.outages.waitMs("kafka") > 0) expect(running.worker.health().dependencies.kafka.failures).toBe(failures);
    await running.worker.heartbeat();
    const row = await database.db.workerInstance.findUniqueOrThrow({ where: { workerId: running.worker.options.workerId } });
    expect(row.status).toMatch(/^degraded: Kafka unreachable since/);
  });
});
