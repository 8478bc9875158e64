/*
 * One Kafka protocol connection of the portal's server, for the message
 * browser's own principal only (READ/DESCRIBE on product topics; the portal
 * holds no admin rights). kafkajs cannot read without joining a consumer
 * group, so the few requests needed — Metadata, ListOffsets, Fetch — go
 * through the protocol package's codecs: ApiVersions → SaslHandshake →
 * SaslAuthenticate (SCRAM), then pipelined requests matched by correlation id.
 * No `server-only` import here so the integration test can load it; it is
 * only ever imported by server code.
 */
import { connect as netConnect, type Socket } from "node:net";
import { connect as tlsConnect, type ConnectionOptions } from "node:tls";
import { ApiKey, apiVersionRange, decodeResponse, encodeRequest, errorName, scramClient, splitFrames, type ApiKeyWithBody, type RequestInput, type ResponseBodies, type ScramMechanism } from "@kappa/kafka-protocol";

export interface ReaderConnectionOptions {
  host: string;
  port: number;
  sasl: { mechanism: ScramMechanism; username: string; password: string } | null;
  tls: ConnectionOptions | null;
  connectTimeoutMs: number;
  requestTimeoutMs: number;
}

export class KafkaError extends Error {
  override name = "KafkaError";
  constructor(
    readonly code: number,
    what: string,
  ) {
    super(`${what}: ${errorName(code) ?? `error ${code}`}`);
  }
}

interface Pending {
  resolve: (frame: Buffer) => void;
  reject: (error: Error) => void;
  timer: NodeJS.Timeout;
}

export class ReaderConnection {
  private socket: Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;
  private closed: Error | null = null;
  private versions = new Map<number, { min: number; max: number }>();

  private constructor(private readonly options: ReaderConnectionOptions) {}

  static async open(options: ReaderConnectionOptions): Promise<ReaderConnection> {
    const conn = new ReaderConnection(options);
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
    return this.socket !== null && this.closed === null;
  }

  private connect(): Promise<void> {
    const { host, port, tls, connectTimeoutMs } = this.options;
    return new Promise((resolve, reject) => {
      const socket = tls ? tlsConnect({ host, port, servername: host, ...tls }) : netConnect({ host, port });
      const timer = setTimeout(() => socket.destroy(new Error(`connecting to Kafka at ${host}:${port} timed out`)), connectTimeoutMs);
      socket.once("error", (e: Error) => {
        clearTimeout(timer);
        reject(new Error(`cannot connect to Kafka at ${host}:${port}: ${e.message}`, { cause: e }));
      });
      socket.once(tls ? "secureConnect" : "connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        socket.setNoDelay(true);
        socket.setKeepAlive(true, 30_000);
        this.socket = socket;
        socket.on("data", (c: Buffer) => this.onData(c));
        socket.on("error", (e: Error) => this.fail(e));
        socket.on("close", () => this.fail(new Error(`connection to ${host}:${port} closed`)));
        resolve();
      });
    });
  }

  private async handshake(): Promise<void> {
    const api = await this.request(ApiKey.ApiVersions, { clientSoftwareName: "kappa-portal", clientSoftwareVersion: "0.1.0" }, 3);
    if (api.errorCode !== 0) throw new KafkaError(api.errorCode, "ApiVersions");
    this.versions = new Map(api.apiKeys.map((k) => [k.apiKey, { min: k.minVersion, max: k.maxVersion }]));
    const sasl = this.options.sasl;
    if (!sasl) return;
    const hs = await this.request(ApiKey.SaslHandshake, { mechanism: sasl.mechanism }, 1);
    if (hs.errorCode !== 0) throw new KafkaError(hs.errorCode, `SASL mechanism ${sasl.mechanism}`);
    const version = this.pick(ApiKey.SaslAuthenticate, 0, 2);
    const send = async (bytes: Buffer) => {
      const res = await this.request(ApiKey.SaslAuthenticate, { authBytes: bytes }, version);
      if (res.errorCode !== 0) throw new KafkaError(res.errorCode, res.errorMessage ?? "SASL authentication");
      return res.authBytes;
    };
    const scram = scramClient(sasl.mechanism, sasl.username, sasl.password);
    const serverFirst = await send(scram.first);
    scram.verifyServer(await send(scram.final(serverFirst)));
  }

  /** Highest version both sides speak within [min, max]. */
  pick(apiKey: number, min: number, max: number): number {
    const ours = apiVersionRange(apiKey);
    const theirs = this.versions.get(apiKey);
    if (!ours || !theirs) throw new Error(`the cluster does not offer API ${apiKey}`);
    const v = Math.min(ours.max, theirs.max, max);
    if (v < Math.max(ours.min, theirs.min, min)) throw new Error(`the cluster offers API ${apiKey} only in versions ${theirs.min}-${theirs.max}`);
    return v;
  }

  request<K extends ApiKeyWithBody>(apiKey: K, body: RequestInput<K>, version: number): Promise<ResponseBodies[K]> {
    if (this.closed) return Promise.reject(this.closed);
    const socket = this.socket;
    if (!socket) return Promise.reject(new Error("not connected"));
    const correlationId = this.nextId++;
    if (this.nextId > 0x7fffffff) this.nextId = 1;
    const frame = encodeRequest({ apiKey, apiVersion: version, correlationId, clientId: "kappa-portal-browser" }, body);
    return new Promise<Buffer>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(correlationId);
        this.fail(new Error(`Kafka request ${apiKey} timed out`));
        reject(new Error(`Kafka request ${apiKey} timed out after ${this.options.requestTimeoutMs} ms`));
      }, this.options.requestTimeoutMs);
      this.pending.set(correlationId, { resolve, reject, timer });
      socket.write(frame);
    }).then((f) => decodeResponse(apiKey, version, f).body);
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
      const id = frame.readInt32BE(0);
      const p = this.pending.get(id);
      if (!p) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.resolve(Buffer.from(frame));
    }
  }

  private fail(error: Error): void {
    this.closed ??= error;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(error);
      this.pending.delete(id);
    }
    this.socket?.destroy();
  }

  close(): void {
    this.fail(new Error("connection closed"));
  }
}
