// Webhooks and e-mail end to end: real PostgreSQL, a real HTTP receiver on
// loopback that verifies the signature, and a real SMTP server (smtp-server).
import { createServer, type IncomingMessage, type Server } from "node:http";
import { createServer as createTcpServer, type AddressInfo, type Server as TcpServer, type Socket } from "node:net";
import { SMTPServer } from "smtp-server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createWebhook, loadActor, notify, SIGNATURE_HEADER, verifyWebhookSignature, webhookDeliveries, type Db } from "@kappa/catalog";
import { NotificationDispatcher } from "../src/notifications/dispatcher.ts";
import { openTestDatabase, SECRETS_KEY, seedPeople, testLogger, waitFor } from "./helpers.ts";

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
let people: Awaited<ReturnType<typeof seedPeople>>;

interface Received {
  body: string;
  headers: IncomingMessage["headers"];
}
let http: Server;
let httpPort = 0;
const received: Received[] = [];
/** Status codes the receiver answers with, in turn; 204 once they run out. */
const answers: number[] = [];

let smtp: SMTPServer;
let smtpPort = 0;
const mails: { from: string; to: string[]; raw: string }[] = [];

beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
  people = await seedPeople(db);
  http = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      received.push({ body, headers: req.headers });
      res.writeHead(answers.shift() ?? 204).end();
    });
  });
  await new Promise<void>((r) => http.listen(0, "127.0.0.1", r));
  httpPort = (http.address() as AddressInfo).port;
  smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ["STARTTLS"],
    logger: false,
    onData(stream, session, callback) {
      let raw = "";
      stream.on("data", (c: Buffer) => (raw += c.toString("utf8")));
      stream.on("end", () => {
        mails.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", to: session.envelope.rcptTo.map((r) => r.address), raw });
        callback();
      });
    },
  });
  await new Promise<void>((r) => smtp.listen(0, "127.0.0.1", () => r()));
  smtpPort = (smtp.server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise<void>((r) => http?.close(() => r()));
  await new Promise<void>((r) => smtp?.close(() => r()));
  await database?.dispose();
});

function dispatcher(overrides: { allowPrivateTargets?: boolean; maxAttempts?: number; smtp?: boolean; timeoutMs?: number; backoffBaseMs?: number } = {}) {
  return new NotificationDispatcher(
    db,
    {
      pollMs: 3_600_000,
      webhooks: {
        secretsKey: SECRETS_KEY,
        portalUrl: "https://kappa.example.test",
        timeoutMs: overrides.timeoutMs ?? 2_000,
        maxAttempts: overrides.maxAttempts ?? 3,
        // Short backoff from configuration (no sleeps): retries become due within ~100 ms.
        backoffBaseMs: overrides.backoffBaseMs ?? 50,
        backoffMaxMs: Math.max(100, overrides.backoffBaseMs ?? 0),
        allowPrivateTargets: overrides.allowPrivateTargets ?? true,
      },
      email: overrides.smtp ? { smtpUrl: `smtp://127.0.0.1:${smtpPort}`, from: "Kappa Mesh <kappa@test.invalid>", portalUrl: "https://kappa.example.test", maxAgeHours: 24 } : undefined,
    },
    testLogger,
  );
}

async function announce(kind: "subscription.approved" | "alert.fired", title: string) {
  return db.$transaction((tx) =>
    notify(tx, {
      kind,
      title,
      body: "Details of the event.",
      link: "/subscriptions/s1",
      entityType: "Subscription",
      entityId: "s1",
      audience: { domainMembers: [people.payments.id] },
      data: { lag: 42 },
    }),
  );
}

describe("webhooks", () => {
  it("signs the JSON with the endpoint's secret, retries after failures and logs every attempt with its status code", async () => {
    const { webhook, secret } = await createWebhook(db, SECRETS_KEY, people.as.paymentsOwner, { domainId: people.payments.id, url: `http://127.0.0.1:${httpPort}/hooks/kappa` });
    answers.push(500, 503);
    const event = await announce("subscription.approved", "Access approved");
    const d = dispatcher();
    await waitFor(async () => {
      await d.runNow();
      return (await db.webhookDelivery.findFirst({ where: { endpointId: webhook.id, status: "DELIVERED" } })) ?? null;
    }, 15_000, "the delivery after two failures");
    await d.stop();

    expect(received).toHaveLength(3);
    for (const r of received) {
      expect(r.headers["content-type"]).toBe("application/json");
      expect(verifyWebhookSignature(secret, String(r.headers[SIGNATURE_HEADER]), r.body)).toBe(true);
      expect(verifyWebhookSignature("whsec_other", String(r.headers[SIGNATURE_HEADER]), r.body)).toBe(false);
      expect(r.headers["x-kappa-event"]).toBe("subscription.approved");
    }
    const payload = JSON.parse(received[2]!.body) as Record<string, unknown>;
    expect(payload).toMatchObject({ id: event.eventId, kind: "subscription.approved", title: "Access approved", link: "https://kappa.example.test/subscriptions/s1", data: { lag: 42 } });
    // The same delivery id on every retry, so receivers can deduplicate.
    expect(new Set(received.map((r) => r.headers["x-kappa-delivery"])).size).toBe(1);

    const log = await webhookDeliveries(db, await loadActor(db, people.as.paymentsOwner.userId), webhook.id);
    expect(log.deliveries[0]).toMatchObject({ status: "DELIVERED", attempts: 3, lastStatusCode: 204 });
    expect(log.deliveries[0]?.log.map((a) => a.statusCode)).toEqual([500, 503, 204]);
    expect(log.deliveries[0]?.log[0]?.error).toBe("HTTP 500");
    received.length = 0;
  });

  it("gives up after the last attempt, and refuses private targets unless allowed (SSRF guard)", async () => {
    await db.webhookEndpoint.deleteMany({});
    const { webhook } = await createWebhook(db, SECRETS_KEY, people.as.paymentsOwner, { domainId: people.payments.id, url: `http://127.0.0.1:${httpPort}/down` });
    answers.push(500, 500, 500, 500);
    await announce("alert.fired", "Lag above objective");
    const d = dispatcher({ maxAttempts: 2 });
    await waitFor(async () => {
      await d.runNow();
      return (await db.webhookDelivery.findFirst({ where: { endpointId: webhook.id, status: "FAILED" } })) ?? null;
    }, 15_000, "the delivery to fail for good");
    await d.stop();
    expect(received).toHaveLength(2);
    answers.length = 0;
    received.length = 0;

    await db.webhookEndpoint.deleteMany({});
    const { webhook: guarded } = await createWebhook(db, SECRETS_KEY, people.as.paymentsOwner, { domainId: people.payments.id, url: `http://127.0.0.1:${httpPort}/internal` });
    await announce("alert.fired", "Lag above objective");
    const strict = dispatcher({ allowPrivateTargets: false, maxAttempts: 1 });
    await strict.runNow();
    await strict.stop();
    const refused = await db.webhookDelivery.findFirstOrThrow({ where: { endpointId: guarded.id } });
    expect(refused).toMatchObject({ status: "FAILED", lastStatusCode: null });
    // The owner learns only that the platform refused it (issue 30, finding 4).
    expect(refused.lastError).toBe("refused by the platform");
    const refusedLog = await webhookDeliveries(db, await loadActor(db, people.as.paymentsOwner.userId), guarded.id);
    expect(refusedLog.deliveries[0]).toMatchObject({ outcome: "refused by the platform", log: [{ outcome: "refused by the platform", durationMs: null }] });
    expect(received).toHaveLength(0);
  });

  it("tells an owner 'timed out' for any transport failure, never the transport error or its timing, in demo mode too (issue 30, finding 4)", async () => {
    await db.webhookEndpoint.deleteMany({});
    // A closed port (ECONNREFUSED), a port that accepts and hangs up (socket hang up): both private, allowed as in demo mode.
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, "127.0.0.1", r));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((r) => closed.close(() => r()));
    const hangUp = createServer((req) => req.socket.destroy());
    await new Promise<void>((r) => hangUp.listen(0, "127.0.0.1", r));
    const hangUpPort = (hangUp.address() as AddressInfo).port;
    try {
      const owner = await loadActor(db, people.as.paymentsOwner.userId);
      const targets = [`http://127.0.0.1:${closedPort}/closed`, `http://127.0.0.1:${hangUpPort}/hangs-up`];
      const hooks: { id: string }[] = [];
      for (const url of targets) hooks.push((await createWebhook(db, SECRETS_KEY, people.as.paymentsOwner, { domainId: people.payments.id, url })).webhook);
      await announce("alert.fired", "Lag above objective");
      const d = dispatcher({ allowPrivateTargets: true, maxAttempts: 1 });
      await waitFor(async () => {
        await d.runNow();
        return (await db.webhookDelivery.count({ where: { endpointId: { in: hooks.map((h) => h.id) }, status: "FAILED" } })) === 2 || null;
      }, 15_000, "both deliveries to fail");
      await d.stop();
      for (const hook of hooks) {
        const log = await webhookDeliveries(db, owner, hook.id);
        expect(log.deliveries[0]).toMatchObject({ status: "FAILED", lastStatusCode: null, lastError: "timed out", outcome: "timed out", log: [{ statusCode: null, error: "timed out", outcome: "timed out", durationMs: null }] });
        expect(JSON.stringify(log, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v))).not.toMatch(/ECONNREFUSED|hang up|ECONNRESET|socket/i);
      }
    } finally {
      await new Promise<void>((r) => hangUp.close(() => r()));
    }
  });
});

describe("e-mail", () => {
  it("sends each recipient's notification to the SMTP server once, with the portal link", async () => {
    await db.webhookEndpoint.deleteMany({});
    const before = await db.notification.count({ where: { emailStatus: "PENDING" } });
    expect(before).toBeGreaterThan(0);
    await announce("alert.fired", "Lag of payments-app above 1000 records");
    const d = dispatcher({ smtp: true });
    await waitFor(async () => {
      await d.runNow();
      return (await db.notification.count({ where: { emailStatus: "PENDING" } })) === 0;
    }, 15_000, "every e-mail sent");
    await d.runNow();
    await d.stop();
    const recipients = (await db.membership.findMany({ where: { domainId: people.payments.id }, include: { user: true } })).map((m) => m.user.email);
    const latest = mails.filter((m) => m.raw.includes("Lag of payments-app above 1000 records"));
    expect(latest.map((m) => m.to[0]).sort()).toEqual(recipients.sort());
    expect(latest[0]?.from).toBe("kappa@test.invalid");
    expect(latest[0]?.raw).toContain("Subject: [Kappa Mesh] Lag of payments-app above 1000 records");
    expect(latest[0]?.raw).toContain("https://kappa.example.test/subscriptions/s1");
    // Sent once: a later pass sends nothing again.
    expect(mails.length).toBe(await db.notification.count({ where: { emailStatus: "SENT" } }));
  });
});

/** A raw TCP server that reads the request and then sends `script`'s bytes one at a time, every `everyMs`, for ever. */
async function tarpit(script: (i: number) => string, everyMs: number): Promise<{ port: number; requests: () => number; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  let requests = 0;
  const server: TcpServer = createTcpServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.once("data", () => {
      requests += 1;
      let i = 0;
      const timer = setInterval(() => {
        if (socket.destroyed) clearInterval(timer);
        else socket.write(script(i++));
      }, everyMs);
      socket.on("close", () => {
        clearInterval(timer);
        sockets.delete(socket);
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return {
    port: (server.address() as AddressInfo).port,
    requests: () => requests,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}

describe("one slow endpoint holds up nothing but itself (issue 30, finding 3)", () => {
  it("beside a tarpit that never finishes its status line and one that trickles its body, a healthy endpoint and e-mail are delivered; the tarpit times out at the attempt's deadline and then backs off", async () => {
    await db.webhookEndpoint.deleteMany({});
    received.length = 0;
    answers.length = 0;
    // Never completes the status line: one byte every 300 ms keeps a socket-idle timeout from ever firing.
    const statusLine = "HTTP/1.1 200 OK\r\nX-Pad: ";
    const silent = await tarpit((i) => (i < statusLine.length ? statusLine[i]! : "a"), 300);
    // Headers at once, then a body of one byte every 300 ms, for ever.
    const trickle = await tarpit((i) => (i === 0 ? "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n" : "1\r\nx\r\n"), 300);
    const d = dispatcher({ smtp: true, timeoutMs: 2_000, backoffBaseMs: 120_000 });
    try {
      const owner = await loadActor(db, people.as.paymentsOwner.userId);
      const hook = async (url: string) => (await createWebhook(db, SECRETS_KEY, people.as.paymentsOwner, { domainId: people.payments.id, url })).webhook.id;
      const silentId = await hook(`http://127.0.0.1:${silent.port}/tarpit`);
      const trickleId = await hook(`http://127.0.0.1:${trickle.port}/trickle`);
      const healthyId = await hook(`http://127.0.0.1:${httpPort}/healthy`);
      const deliveryOf = async (endpointId: string, title: string) =>
        (await db.webhookDelivery.findMany({ where: { endpointId } })).find((x) => (x.payload as { title?: string }).title === title) ?? null;

      await announce("alert.fired", "Slow endpoint, first event");
      await d.runNow();
      await waitFor(() => silent.requests() === 1 || null, 15_000, "the tarpit to receive its delivery");

      // A second event while the tarpit holds its attempt: the healthy endpoint gets it, and so does e-mail.
      await announce("alert.fired", "Slow endpoint, second event");
      await waitFor(async () => {
        await d.runNow();
        return (await deliveryOf(healthyId, "Slow endpoint, second event"))?.status === "DELIVERED" || null;
      }, 15_000, "the healthy endpoint's second delivery");
      await waitFor(async () => {
        await d.runNow();
        return mails.some((m) => m.raw.includes("Slow endpoint, second event")) || null;
      }, 15_000, "the second event's e-mail");
      // The trickling endpoint counts as answered (its status line is in); its body is not waited for.
      await waitFor(async () => {
        await d.runNow();
        return (await deliveryOf(trickleId, "Slow endpoint, second event"))?.status === "DELIVERED" || null;
      }, 15_000, "the trickling endpoint's deliveries");
      expect(await deliveryOf(trickleId, "Slow endpoint, first event")).toMatchObject({ status: "DELIVERED", lastStatusCode: 200 });

      // The tarpit's attempt ends at the deadline although bytes kept coming.
      const first = await waitFor(async () => {
        const x = await deliveryOf(silentId, "Slow endpoint, first event");
        return x && x.attempts === 1 ? x : null;
      }, 15_000, "the tarpit's attempt to time out");
      expect(first).toMatchObject({ status: "PENDING", lastStatusCode: null, lastError: "timed out" });
      const log = await webhookDeliveries(db, owner, silentId);
      expect(log.deliveries.find((x) => x.id === first.id)?.log).toMatchObject([{ outcome: "timed out", durationMs: null }]);

      // Backoff per endpoint: its second delivery is not tried while it backs off; others go on.
      await announce("alert.fired", "Slow endpoint, third event");
      await waitFor(async () => {
        await d.runNow();
        return (await deliveryOf(healthyId, "Slow endpoint, third event"))?.status === "DELIVERED" || null;
      }, 15_000, "the healthy endpoint's third delivery");
      await d.runNow();
      expect(await deliveryOf(silentId, "Slow endpoint, second event")).toMatchObject({ status: "PENDING", attempts: 0 });
      expect(silent.requests()).toBe(1);
    } finally {
      await d.stop();
      await silent.close();
      await trickle.close();
    }
  }, 120_000);
});
