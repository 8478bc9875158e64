import { connect, createServer, type Server, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { adoptWithReadBuffer } from "./read-buffer.ts";

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise<void>((resolve) => s.close(() => resolve()))));
});

async function until(condition: () => boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("condition not reached");
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe("adoptWithReadBuffer", () => {
  it("delivers an accepted socket's bytes through one reused buffer, pauses and resumes, and keeps the server's connection count", async () => {
    const shared = Buffer.alloc(64 * 1024);
    const received: Buffer[] = [];
    const buffersSeen = new Set<Buffer>();
    let adopted: Socket | null = null;
    const server = createServer({ pauseOnConnect: true }, (accepted) => {
      adopted = adoptWithReadBuffer(accepted, shared, (buf, n) => {
        buffersSeen.add(buf);
        received.push(Buffer.from(buf.subarray(0, n)));
      });
      adopted?.on("data", () => {
        throw new Error("no data events with a user buffer");
      });
      adopted?.write("hello from the broker side");
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const client = connect(port, "127.0.0.1");
    const fromServer: Buffer[] = [];
    client.on("data", (d: Buffer) => fromServer.push(d));
    const payload = Buffer.alloc(1_000_000);
    for (let i = 0; i < payload.length; i++) payload[i] = i % 253;
    client.write(payload);
    await until(() => received.reduce((n, b) => n + b.length, 0) === payload.length);
    expect(Buffer.concat(received).equals(payload)).toBe(true);
    expect([...buffersSeen]).toEqual([shared]);
    // Writes go through the adopted socket too.
    await until(() => Buffer.concat(fromServer).toString() === "hello from the broker side");
    const count = () => new Promise<number>((resolve, reject) => server.getConnections((err, n) => (err ? reject(err) : resolve(n))));
    expect(await count()).toBe(1);

    // pause(): nothing more is delivered until resume().
    adopted!.pause();
    received.length = 0;
    client.write(Buffer.alloc(1000, 1));
    await new Promise((r) => setTimeout(r, 200));
    expect(received.length).toBe(0);
    adopted!.resume();
    await until(() => received.reduce((n, b) => n + b.length, 0) === 1000);

    // Closing the adopted socket ends the accepted one: the server's count drops and close() completes.
    const closedOnClient = new Promise<void>((resolve) => client.on("close", () => resolve()));
    adopted!.destroy();
    await closedOnClient;
    let n = -1;
    await until(() => {
      void count().then((c) => (n = c));
      return n === 0;
    });
    // The afterEach server.close() resolves only because the count reached 0.
  });

  it("reads into the buffer a target function names for each read, and tells the callback which one it was", async () => {
    const shared = Buffer.alloc(4096);
    const own = Buffer.alloc(600_000);
    let ownFilled = 0;
    let sharedBytes = 0;
    const server = createServer({ pauseOnConnect: true }, (accepted) => {
      // The first 4,096 bytes into the shared buffer, then the rest straight into `own`.
      adoptWithReadBuffer(
        accepted,
        // (A target must never be empty: libuv answers a read into zero bytes with ENOBUFS.)
        () => (sharedBytes < 4096 || ownFilled === own.length ? shared.subarray(0, Math.max(1, 4096 - sharedBytes)) : own.subarray(ownFilled)),
        (buf, n) => {
          if (buf.buffer === shared.buffer) sharedBytes += n;
          else {
            expect(buf.buffer).toBe(own.buffer);
            ownFilled += n;
          }
        },
      );
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
    const address = server.address();
    const port = typeof address === "object" && address ? address.port : 0;
    const client = connect(port, "127.0.0.1");
    const payload = Buffer.alloc(4096 + own.length);
    for (let i = 0; i < payload.length; i++) payload[i] = i % 241;
    client.write(payload);
    await until(() => sharedBytes + ownFilled === payload.length);
    expect(sharedBytes).toBe(4096);
    expect(own.equals(payload.subarray(4096))).toBe(true);
    client.destroy();
  });
});
