// Time for a new authenticated connection: TCP connect + ApiVersions + SaslHandshake
// + SaslAuthenticate round trips, for SCRAM-SHA-512 at 4096 and 8192 iterations and
// for PLAIN (whose check derives the SCRAM key on the broker; PLAIN knows the
// start-up users only, whose credentials have 4096 iterations).
//
//   npx tsx bench/sasl.ts [connections per case, default 40]
//
// The SCRAM cost is mostly the client's PBKDF2 (the broker only computes HMACs);
// PLAIN moves that PBKDF2 to the broker's thread pool.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { startBroker } from "../src/index.ts";
import { RawClient } from "../test/helpers.ts";
import { SCRAM_SHA_512, rawPlainLogin, scramClientFinal, upsertion } from "../test/sasl-helpers.ts";

const N = Number(process.argv[2] ?? 40);
const quiet = { debug: () => {}, info: () => {}, warn: (m: string) => process.stderr.write(`${m}\n`), error: (m: string) => process.stderr.write(`${m}\n`) };

async function scramConnect(port: number, user: string, password: string): Promise<{ total: number; final: number }> {
  const t0 = performance.now();
  const c = await RawClient.connect(port);
  await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "bench", clientSoftwareVersion: "1" });
  await c.request(ApiKey.SaslHandshake, 1, { mechanism: SCRAM_SHA_512.name });
  const bare = `n=${user},r=${Math.random().toString(36).slice(2)}`;
  const first = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`n,,${bare}`) });
  const finalMsg = scramClientFinal(SCRAM_SHA_512, password, bare, first.body.authBytes.toString());
  const t1 = performance.now();
  const done = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(finalMsg) });
  const t2 = performance.now();
  if (done.body.errorCode !== ErrorCode.NONE) throw new Error(`authentication failed: ${done.body.errorMessage}`);
  c.close();
  return { total: t2 - t0, final: t2 - t1 };
}

async function plainConnect(port: number, user: string, password: string): Promise<{ total: number; final: number }> {
  const t0 = performance.now();
  const c = await rawPlainLogin(port, user, password);
  const t1 = performance.now();
  c.close();
  return { total: t1 - t0, final: Number.NaN };
}

function stats(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? Number.NaN;
  return `median ${q(0.5).toFixed(2)} ms, p95 ${q(0.95).toFixed(2)} ms, min ${q(0).toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), "kappa-sasl-bench-"));
  const broker = await startBroker({ listeners: "SASL_PLAINTEXT://127.0.0.1:0", "log.dirs": dir, logger: quiet, saslUsers: [{ name: "admin", password: "admin-pw" }, { name: "p4096", password: "pw-4096" }] });
  try {
    const port = broker.port;
    const admin = await rawPlainLogin(port, "admin", "admin-pw");
    const r = await admin.request(ApiKey.AlterUserScramCredentials, 0, {
      deletions: [],
      upsertions: [upsertion("u4096", SCRAM_SHA_512, "pw-4096", 4096), upsertion("u8192", SCRAM_SHA_512, "pw-8192", 8192)],
    });
    if (r.body.results.some((x) => x.errorCode !== ErrorCode.NONE)) throw new Error(JSON.stringify(r.body.results));
    admin.close();
    const cases: Array<[string, () => Promise<{ total: number; final: number }>]> = [
      ["SCRAM-SHA-512, 4096 iterations", () => scramConnect(port, "u4096", "pw-4096")],
      ["SCRAM-SHA-512, 8192 iterations", () => scramConnect(port, "u8192", "pw-8192")],
      ["PLAIN (a start-up user: SHA-512 credential, 4096 iterations, derived on the broker)", () => plainConnect(port, "p4096", "pw-4096")],
    ];
    for (const [name, run] of cases) {
      for (let i = 0; i < 5; i++) await run(); // warm-up
      const totals: number[] = [];
      const finals: number[] = [];
      for (let i = 0; i < N; i++) {
        const t = await run();
        totals.push(t.total);
        finals.push(t.final);
      }
      const finalPart = Number.isNaN(finals[0] ?? Number.NaN) ? "" : `; client-final -> server-final round trip ${stats(finals)}`;
      process.stdout.write(`${name}: new connection (connect + ApiVersions + handshake + auth) ${stats(totals)}${finalPart}\n`);
    }
  } finally {
    await broker.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
