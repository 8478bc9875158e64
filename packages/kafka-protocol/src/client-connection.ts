/*
 * One Kafka protocol client connection over TCP (or TLS), for callers that
 * need requests kafkajs cannot send: the worker's admin requests (SCRAM user
 * admin, ListOffsets −4/−5, DescribeLogDirs, IncrementalAlterConfigs) and the
 * portal's message-browser reader (Metadata, ListOffsets, Fetch by partition,
 * without a consumer group). Requests are pipelined and matched by
 * correlation id. SASL (PLAIN, SCRAM-SHA-256/512) runs right after
 * ApiVersions, as Kafka requires: ApiVersions → SaslHandshake v1 →
 * SaslAuthenticate. Exported as `@kappa/kafka-protocol/client` so that the
 * codecs' entry point stays free of sockets.
 */
import { isIP, connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { apiVersionRange } from "./codec.ts";
import { errorName } from "./error-names.ts";
import { FrameAssembler } from "./frame-assembler.ts";
import { decodeResponse, encodeRequest, type ApiKeyWithBody, type RequestInput } from "./frames.ts";
import { ApiKey } from "./generated/api-keys.ts";
import type { ResponseBodies } from "./generated/messages.ts";
import { scramClient } from "./sasl-scram.ts";

export type SaslMechanism = "PLAIN" | "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface KafkaConnectionOptions {
  host: string;
  port: number;
  /** The request header's client id (what the broker logs and quotas by). */
  clientId: string;
  /** ApiVersions v3's client software name (KIP-511: letters, digits, `-` and `.`); "kappa-mesh" if not given. */
  clientSoftwareName?: string;
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
  resolve: (frame: Buffer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class KafkaConnection {
  private socket: Socket | null = null;
  private readonly frames = new FrameAssembler();
  private readonly pending = new Map<number, Pending>();
  private nextCorrelationId = 1;
  private closedError: Error | null = null;
  /** Broker's version ranges per API key, from ApiVersions. */
  versions = new Map<number, { min: number; max: number }>();

  private constructor(private readonly options: KafkaConnectionOptions) {}

  static async open(options: KafkaConnectionOptions): Promise<KafkaConnection> {
    const conn = new KafkaConnection(options);
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
      // SNI carries host names only (RFC 6066); an IP address is not sent.
      const socket = tls ? tlsConnect({ host, port, ...(isIP(host) === 0 ? { servername: host } : {}), ...tls }) : netConnect({ host, port });
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
    const api = await this.request(ApiKey.ApiVersions, { clientSoftwareName: this.options.clientSoftwareName ?? "kappa-mesh", clientSoftwareVersion: "0.1.0" }, 3);
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
    const scram = scramClient(sasl.mechanism, sasl.username, sasl.password);
    const serverFirst = await authenticate(scram.first);
    // Mutual authentication: the broker proves it knows the ServerKey too.
    scram.verifyServer(await authenticate(scram.final(serverFirst)));
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
      this.pending.set(correlationId, { resolve, reject, timer });
      socket.write(frame);
    }).then((responseFrame) => decodeResponse(apiKey, version, responseFrame).body);
  }

  private onData(chunk: Buffer): void {
    let frames: Buffer[];
    try {
      frames = this.frames.push(chunk);
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
      // Each frame is a buffer of its own (decoded bytes fields are views into it).
      entry.resolve(frame);
    }
  }

  private fail(error: Error): void {
    this.closedError ??= error;
    for (const [id, entry] of this.pending) {
      clearTimeout(entry.timer);
      entry.reject(error);
      this.pending.delete(id);
    }
    this.socket?.destroy();
  }

  close(): void {
    this.fail(new Error("connection closed by the client"));
  }
}
