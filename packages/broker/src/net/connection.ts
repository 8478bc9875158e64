// One client connection: frames in, responses out.
//
// Ordering: requests are decoded and their handlers started as they arrive
// (pipelining, so that many in-flight acks=-1 produce requests share one fsync),
// but responses are written strictly in request order: each request takes a slot
// in `pending`, and only the head slot is ever written. Produce with acks=0 takes
// a slot that is simply skipped.
//
// Memory and backpressure: reading from the socket pauses while too many requests
// are in flight, while too many request bytes are queued, or while the socket's
// write buffer is above its high-water mark (a slow reader). Pausing stops the
// kernel from delivering more of this client's bytes, so TCP pushes back on that
// client alone; other connections (e.g. producers) are unaffected.
import type { Socket } from "node:net";
import { decodeRequestHeader, decodeRequest, encodeResponse, ApiKey, ErrorCode, type ApiKeyWithBody, type ResponseInput } from "@kappa/kafka-protocol";
import { FrameError, FrameReader } from "./frame-reader.ts";
import type { BrokerCore } from "../broker.ts";
import type { RequestContext } from "../registry.ts";
import { ANONYMOUS, type Session } from "../session.ts";

/** Queued response bytes above which the connection stops reading new requests. */
const WRITE_HIGH_WATER = 8 * 1024 * 1024;
/** Request bytes decoded but not yet answered above which reading pauses. */
const QUEUED_REQUEST_BYTES_LIMIT = 64 * 1024 * 1024;

interface Slot {
  done: boolean;
  /** Encoded response including its size prefix; null = nothing to send. */
  response: Buffer | null;
  /** Close the connection when this slot reaches the head instead of writing (control hook). */
  closeInstead: boolean;
  requestBytes: number;
}

export class Connection {
  readonly session: Session;
  private readonly reader: FrameReader;
  private readonly pending: Slot[] = [];
  private queuedRequestBytes = 0;
  private closed = false;
  private readPaused = false;
  private readonly abort = new AbortController();

  constructor(
    private readonly socket: Socket,
    private readonly core: BrokerCore,
    connectionId: number,
  ) {
    this.session = {
      connectionId,
      clientAddress: socket.remoteAddress ?? "unknown",
      clientPort: socket.remotePort ?? 0,
      clientId: "",
      principal: ANONYMOUS,
      state: "ready",
      saslMechanism: null,
    };
    this.reader = new FrameReader(core.config["socket.request.max.bytes"]);
    socket.setNoDelay(true);
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("drain", () => this.updateFlowControl());
    socket.on("error", (err) => {
      // ECONNRESET and friends are the peer's business; note them at debug level only.
      this.core.logger.debug(`connection ${this.describe()}: socket error: ${err.message}`);
    });
    socket.on("close", () => this.onClosed());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  describe(): string {
    return `#${this.session.connectionId} ${this.session.clientAddress}:${this.session.clientPort}`;
  }

  /** Close with a log line: protocol violations are logged at warn so operators see misbehaving clients. */
  close(reason: string, level: "warn" | "info" | "debug" = "warn"): void {
    if (this.closed) return;
    this.core.logger[level](`closing connection ${this.describe()} (client_id "${this.session.clientId}"): ${reason}`);
    this.closed = true;
    this.socket.destroy();
    this.onClosed();
  }

  private onClosed(): void {
    this.closed = true;
    if (!this.abort.signal.aborted) this.abort.abort();
    this.pending.length = 0;
    this.core.connectionClosed(this);
  }

  private onData(chunk: Buffer): void {
    if (this.closed) return;
    let frames: Buffer[];
    try {
      frames = this.reader.push(chunk);
    } catch (err) {
      if (err instanceof FrameError) return this.close(err.message);
      throw err;
    }
    for (const frame of frames) {
      if (this.closed) return;
      this.dispatch(frame);
    }
    this.updateFlowControl();
  }

  private updateFlowControl(): void {
    if (this.closed) return;
    const busy =
      this.pending.length >= this.core.config["queued.max.requests.per.connection"] ||
      this.queuedRequestBytes >= QUEUED_REQUEST_BYTES_LIMIT ||
      this.socket.writableLength >= WRITE_HIGH_WATER;
    if (busy && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    } else if (!busy && this.readPaused) {
      this.readPaused = false;
      this.socket.resume();
    }
  }

  private dispatch(frame: Buffer): void {
    let header: ReturnType<typeof decodeRequestHeader>;
    try {
      header = decodeRequestHeader(frame);
    } catch (err) {
      return this.close(`malformed request header: ${(err as Error).message}`);
    }
    const { apiKey, apiVersion, correlationId } = header;
    this.session.clientId = header.clientId ?? "";
    if (this.core.gate(this.session, apiKey) === "close") {
      return this.close(`api key ${apiKey} not allowed in connection state ${this.session.state}`);
    }
    const api = this.core.registry.get(apiKey);
    if (!api) {
      // Kafka fails to parse the header of an unknown api key and closes the connection.
      return this.close(`unknown api key ${apiKey} (version ${apiVersion}, correlation id ${correlationId})`);
    }
    if (apiKey === ApiKey.ApiVersions && apiVersion > api.advertised.max) {
      // BROKER-SPEC §2: answer an ApiVersions version we do not know with a v0 body
      // carrying UNSUPPORTED_VERSION and our ApiVersions range, without parsing the body.
      const slot = this.newSlot(frame.length);
      slot.response = encodeResponse(ApiKey.ApiVersions, 0, correlationId, {
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: api.advertised.min, maxVersion: api.advertised.max }],
      });
      slot.done = true;
      this.flush();
      return;
    }
    if (apiVersion < api.implemented.min || apiVersion > api.implemented.max) {
      return this.close(
        `unsupported ${api.name} version ${apiVersion} (serving ${api.implemented.min}-${api.implemented.max}, advertising ${api.advertised.min}-${api.advertised.max})`,
      );
    }
    let body: unknown;
    try {
      body = decodeRequest(frame).body;
    } catch (err) {
      return this.close(`malformed ${api.name} v${apiVersion} request: ${(err as Error).message}`);
    }
    const ctx: RequestContext = {
      broker: this.core,
      session: this.session,
      apiKey,
      apiVersion,
      correlationId,
      signal: this.abort.signal,
    };
    const action = this.core.control.decide({ apiKey, apiVersion, correlationId, session: this.session, body });
    if (action?.kind === "close-before") return this.close(`control: closing before ${api.name}`, "info");
    const slot = this.newSlot(frame.length);
    if (action?.kind === "drop-response") slot.closeInstead = true;
    const delayMs = action?.kind === "delay" ? action.ms : 0;
    api.handle(ctx, body).then(
      async (result) => {
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        if (this.closed) return;
        if (result !== null) {
          try {
            // The registry only holds handlers for api keys the codec has bodies for.
            slot.response = encodeResponse(apiKey as ApiKeyWithBody, apiVersion, correlationId, result as ResponseInput<ApiKeyWithBody>);
          } catch (err) {
            this.core.logger.error(`cannot encode ${api.name} v${apiVersion} response: ${(err as Error).stack ?? String(err)}`);
            return this.close(`internal error encoding ${api.name} response`, "warn");
          }
        }
        slot.done = true;
        this.flush();
      },
      (err: unknown) => {
        this.core.logger.error(`${api.name} v${apiVersion} handler failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.close(`internal error in ${api.name}`);
      },
    );
  }

  private newSlot(requestBytes: number): Slot {
    const slot: Slot = { done: false, response: null, closeInstead: false, requestBytes };
    this.pending.push(slot);
    this.queuedRequestBytes += requestBytes;
    return slot;
  }

  private flush(): void {
    while (!this.closed) {
      const head = this.pending[0];
      if (!head || !head.done) break;
      this.pending.shift();
      this.queuedRequestBytes -= head.requestBytes;
      if (head.closeInstead) return this.close("control: dropping response", "info");
      if (head.response) this.socket.write(head.response);
    }
    this.updateFlowControl();
  }
}
