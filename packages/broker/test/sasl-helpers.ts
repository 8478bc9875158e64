// Helpers for the SASL/TLS tests: a raw client that authenticates, kafkajs
// factories with SASL, and a kcat runner.
import { spawn } from "node:child_process";
import { pbkdf2Sync, randomBytes } from "node:crypto";
import type { SASLOptions } from "kafkajs";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { SCRAM_SHA_256, SCRAM_SHA_512, clientProof, type ScramMechanism } from "../src/security/scram/scram.ts";
import { RawClient, kafkaClient } from "./helpers.ts";

export type KafkajsMechanism = "plain" | "scram-sha-256" | "scram-sha-512";

export function saslKafka(bootstrap: string, mechanism: KafkajsMechanism, username: string, password: string, extra: Parameters<typeof kafkaClient>[1] = {}) {
  const sasl = { mechanism, username, password } as SASLOptions;
  // No retries: an authentication failure must surface at once, not after backoff.
  return kafkaClient(bootstrap, { sasl, retry: { retries: 0 }, ...extra });
}

/** Connects a kafkajs admin and lists topics; resolves to the topic list or rejects with kafkajs' error. */
export async function adminListTopics(bootstrap: string, mechanism: KafkajsMechanism, user: string, password: string, extra: Parameters<typeof kafkaClient>[1] = {}): Promise<string[]> {
  const admin = saslKafka(bootstrap, mechanism, user, password, extra).admin();
  try {
    await admin.connect();
    return await admin.listTopics();
  } finally {
    await admin.disconnect();
  }
}

/** ApiVersions, then SaslHandshake v1 + SaslAuthenticate v1 with PLAIN; throws unless authenticated. */
export async function rawPlainLogin(port: number, user: string, password: string): Promise<RawClient> {
  const c = await RawClient.connect(port);
  await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "raw-test", clientSoftwareVersion: "1" });
  const hs = await c.request(ApiKey.SaslHandshake, 1, { mechanism: "PLAIN" });
  if (hs.body.errorCode !== ErrorCode.NONE) throw new Error(`handshake failed: ${hs.body.errorCode}`);
  const auth = await c.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`\u0000${user}\u0000${password}`) });
  if (auth.body.errorCode !== ErrorCode.NONE) throw new Error(`authentication failed: ${auth.body.errorCode} ${auth.body.errorMessage}`);
  return c;
}

/** What a client (kafka-configs.sh, the Java admin) sends in an AlterUserScramCredentials upsertion. */
export function upsertion(name: string, mech: ScramMechanism, password: string, iterations: number) {
  const salt = randomBytes(24);
  return { name, mechanism: mech.type, iterations, salt, saltedPassword: pbkdf2Sync(password, salt, iterations, mech.keyLength, mech.hash) };
}

export { SCRAM_SHA_256, SCRAM_SHA_512 };

/** Raw SCRAM exchange messages, for replay and state tests. */
export function scramClientFinal(mech: ScramMechanism, password: string, clientFirstBare: string, serverFirst: string): string {
  const attrs = new Map(serverFirst.split(",").map((kv) => [kv.slice(0, 1), kv.slice(2)]));
  const salt = Buffer.from(attrs.get("s") ?? "", "base64");
  const iterations = Number(attrs.get("i"));
  const salted = pbkdf2Sync(password, salt, iterations, mech.keyLength, mech.hash);
  const withoutProof = `c=biws,r=${attrs.get("r") ?? ""}`;
  const proof = clientProof(mech, salted, `${clientFirstBare},${serverFirst},${withoutProof}`);
  return `${withoutProof},p=${proof.toString("base64")}`;
}

export function runKcat(bootstrap: string, args: string[], input?: string, timeoutMs = 20_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("kcat", ["-b", bootstrap, ...args], { stdio: ["pipe", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`kcat ${args.join(" ")} timed out\n${stderr}`));
    }, timeoutMs);
    child.on("error", (err) => {
      clearTimeout(timer);
      reject(new Error(`cannot run kcat (install the Debian package "kcat"): ${err.message}`));
    });
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(input ?? "");
  });
}

/**
 * kcat's SASL flags. PLAIN by default: Debian's kcat is built on librdkafka 2.0.2,
 * whose SCRAM client-final carries a wrong nonce (fixed in librdkafka 2.6.1), which
 * Kafka 4.x and this broker refuse.
 */
export function kcatSasl(user: string, password: string, protocol = "SASL_PLAINTEXT", mechanism = "PLAIN"): string[] {
  return ["-X", `security.protocol=${protocol}`, "-X", `sasl.mechanisms=${mechanism}`, "-X", `sasl.username=${user}`, "-X", `sasl.password=${password}`];
}
