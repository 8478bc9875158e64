/*
 * One long-lived Kafka protocol connection, for the requests kafkajs 2.2.4
 * cannot send (SCRAM user admin, ListOffsets −4/−5, DescribeLogDirs,
 * IncrementalAlterConfigs). Requests are pipelined with correlation ids; the
 * broker answers in order on one connection, but matching by id keeps us
 * honest. SASL (PLAIN, SCRAM-SHA-256/512) runs right after ApiVersions, as
 * Kafka requires: ApiVersions → SaslHandshake v1 → SaslAuthenticate.
 */
import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import {
  ApiKey,
  apiVersionRange,
  decodeResponse,
  encodeRequest,
  errorName,
  splitFrames,
  type ApiKeyWithBody,
  type RequestInput,
  type ResponseBodies,
} from "@kappa/kafka-protocol";

export type SaslMechanism = "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface RawConnectionOptions {
  host: string;
  port: number;
  clientId: string;
  sasl: { mechanism: SaslMechanism; username: string; password: string } | null;
  /** TLS options (ca, servername); null for a plaintext listener. */
  tls: ConnectionOptions | null;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

/** A Kafka error code in a response, with Kafka's name for it. */
export class KafkaProtocolError extends Error {
  override name = "KafkaProtocolError";
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(`${errorName(code) ?? `error ${code}`}: ${message}`);
  }
}

/** The broker does not offer the API (or any version of it we speak). */
export class UnsupportedApiError extends Error {
  override name = "UnsupportedApiError";
}

interface Pending {
  apiKey: ApiKeyWithBody;
  version: number;
  resolve: (frame: Buffer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class RawConnection {
  private socket: Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, Pending>();
  private nextCorrelationId = 1;
  private closedError: Error | null = null;
  /** Broker's version ranges per API key, from ApiVersions. */
  versions = new Map<number, { min: number; max: number }>();

  private constructor(private readonly options: RawConnectionOptions) {}

  static async open(options: RawConnectionOptions): Promise<RawConnection> {
    const conn = new RawConnection(options);
    await conn.connect();
    try {
      await conn.handshake();
    } catch (error) {
      conn.close();
      throw error;
    }
    return conn;
  }

  get isOpen(): boolean {
    return this.socket !== null && this.closedError === null;
  }

  private connect(): Promise<void> {
    const { host, port, tls, connectTimeoutMs } = this.options;
    return new Promise((resolve, reject) => {
      const socket = tls ? tlsConnect({ host, port, ...tls }) : netConnect({ host, port });
      const timer = setTimeout(() => {
        socket.destroy(new Error(`connecting to ${host}:${port} timed out after ${connectTimeoutMs} ms`));
      }, connectTimeoutMs);
      const onError = (error: Error) => {
        clearTimeout(timer);
        reject(new Error(`cannot connect to Kafka at ${host}:${port}: ${error.message}`, { cause: error }));
      };
      socket.once("error", onError);
      socket.once(tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.off("error", onError);
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 30_000);
        this.socket = socket;
        socket.on("data", (chunk: Buffer) => this.onData(chunk));
        socket.on("error", (error: Error) => this.fail(error));
        socket.on("close", () => this.fail(new Error(`connection to ${host}:${port} closed`)));
        resolve();
      });
    });
  }

  private async handshake(): Promise<void> {
    // v3 is the first flexible version; every broker since Kafka 2.4 (and ours) serves it.
    const api = await this.request(ApiKey.ApiVersions, { clientSoftwareName: "kappa-worker", clientSoftwareVersion: "0.1.0" }, 3);
    if (api.errorCode !== 0) throw new KafkaProtocolError(api.errorCode, "ApiVersions failed");
    this.versions = new Map(api.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
    const sasl = this.options.sasl;
    if (!sasl) return;
    const hs = await this.request(ApiKey.SaslHandshake, { mechanism: sasl.mechanism }, 1);
    if (hs.errorCode !== 0) throw new KafkaProtocolError(hs.errorCode, `SASL mechanism ${sasl.mechanism} refused; the broker offers ${hs.mechanisms.join(", ")}`);
    const authVersion = this.pickVersion(ApiKey.SaslAuthenticate, 0, 2);
    const authenticate = async (bytes: Buffer): Promise<Buffer> => {
      const res = await this.request(ApiKey.SaslAuthenticate, { authBytes: bytes }, authVersion);
      if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, res.errorMessage ?? "SASL authentication failed");
      return res.authBytes;
    };
    if (sasl.mechanism === "PLAIN") {
      await authenticate(Buffer.from(`\u0000${sasl.username}\u0000${sasl.password}`, "utf8"));
      return;
    }
    await scramAuthenticate(sasl.mechanism, sasl.username, sasl.password, authenticate);
  }

  /** Highest version both sides speak, at least `min`; throws UnsupportedApiError otherwise. */
  pickVersion(apiKey: number, min: number, max: number): number {
    const ours = apiVersionRange(apiKey);
    const theirs = this.versions.get(apiKey);
    if (!ours || !theirs) throw new UnsupportedApiError(`the cluster does not offer API ${apiKey}`);
    const v = Math.min(ours.max, theirs.max, max);
    if (v < Math.max(ours.min, theirs.min, min)) throw new UnsupportedApiError(`the cluster offers API ${apiKey} only in versions ${theirs.min}-${theirs.max}; ${min}+ is needed`);
    return v;
  }

  supports(apiKey: number, minVersion = 0): boolean {
    const theirs = this.versions.get(apiKey);
    return theirs !== undefined && theirs.max >= minVersion;
  }

  request<K extends ApiKeyWithBody>(apiKey: K, body: RequestInput<K>, version: number): Promise<ResponseBodies[K]> {
    if (this.closedError) return Promise.reject(this.closedError);
    const socket = this.socket;
    if (!socket) return Promise.reject(new Error("not connected"));
    const correlationId = this.nextCorrelationId++;
    if (this.nextCorrelationId > 0x7fffffff) this.nextCorrelationId = 1;
    const frame = encodeRequest({ apiKey, apiVersion: version, correlationId, clientId: this.options.clientId }, body);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        // A late answer would desynchronise nothing (ids), but the connection is suspect: drop it.
        this.fail(new Error(`request ${apiKey} v${version} timed out after ${this.options.requestTimeoutMs} ms`));
        reject(new Error(`request ${apiKey} v${version} timed out after ${this.options.requestTimeoutMs} ms`));
      }, this.options.requestTimeoutMs);
      this.pending.set(correlationId, { apiKey, version, resolve, reject, timer });
      socket.write(frame);
    }).then((responseFrame) => decodeResponse(apiKey, version, responseFrame).body);
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    let frames: Buffer[];
    try {
      ({ frames, rest: this.buffer } = splitFrames(this.buffer));
    } catch (error) {
      this.fail(error instanceof Error ? error : new Error(String(error)));
      return;
    }
    for (const frame of frames) {
      const correlationId = frame.readInt32BE(0);
      const entry = this.pending.get(correlationId);
      if (!entry) continue;
      this.pending.delete(correlationId);
      clearTimeout(entry.timer);
      // Copy: decoded bytes fields are views, and the receive buffer is reused.
      entry.resolve(Buffer.from(frame));
    }
  }

  private fail(error: Error): void {
    if (!this.closedError) this.closedError = error;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(error);
      this.pending.delete(id);
    }
    this.socket?.destroy();
  }

  close(): void {
    this.fail(new Error("connection closed by the worker"));
  }
}

/** RFC 5802 client side, with the username escaping Kafka expects (`=2C`, `=3D`). */
async function scramAuthenticate(
  mechanism: "SCRAM-SHA-256" | "SCRAM-SHA-512",
  username: string,
  password: string,
  send: (bytes: Buffer) => Promise<Buffer>,
): Promise<void> {
  const hash = mechanism === "SCRAM-SHA-512" ? "sha512" : "sha256";
  const keyLength = mechanism === "SCRAM-SHA-512" ? 64 : 32;
  const hmac = (key: Buffer, text: string) => createHmac(hash, key).update(text, "utf8").digest();
  const clientNonce = randomBytes(24).toString("base64url");
  const clientFirstBare = `n=${username.replace(/=/g, "=3D").replace(/,/g, "=2C")},r=${clientNonce}`;
  const serverFirst = (await send(Buffer.from(`n,,${clientFirstBare}`, "utf8"))).toString("utf8");
  const attrs = new Map(serverFirst.split(",").map((part) => [part.slice(0, 1), part.slice(2)] as const));
  const nonce = attrs.get("r");
  const salt = attrs.get("s");
  const iterations = Number(attrs.get("i"));
  if (!nonce?.startsWith(clientNonce) || !salt || !Number.isInteger(iterations) || iterations < 4096) {
    throw new Error(`SCRAM: unexpected server-first message from the broker`);
  }
  const salted = pbkdf2Sync(password, Buffer.from(salt, "base64"), iterations, keyLength, hash);
  const clientKey = hmac(salted, "Client Key");
  const storedKey = createHash(hash).update(clientKey).digest();
  const clientFinalWithoutProof = `c=biws,r=${nonce}`;
  const authMessage = `${clientFirstBare},${serverFirst},${clientFinalWithoutProof}`;
  const signature = hmac(storedKey, authMessage);
  const proof = Buffer.alloc(clientKey.length);
  for (let i = 0; i < proof.length; i++) proof[i] = (clientKey[i] ?? 0) ^ (signature[i] ?? 0);
  const serverFinal = (await send(Buffer.from(`${clientFinalWithoutProof},p=${proof.toString("base64")}`, "utf8"))).toString("utf8");
  // Mutual authentication: the broker proves it knows the ServerKey too.
  const expected = hmac(hmac(salted, "Server Key"), authMessage);
  const verifier = /(?:^|,)v=([^,]+)/.exec(serverFinal)?.[1];
  const given = verifier ? Buffer.from(verifier, "base64") : Buffer.alloc(0);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new Error("SCRAM: the broker's server signature does not match");
  }
}
