// One client connection: frames in, responses out.
//
// Ordering: requests are decoded and their handlers started as they arrive
// (pipelining, so that many in-flight acks=-1 produce requests share one fsync),
// but responses are written strictly in request order: each request takes a slot
// in `pending`, and only the head slot is ever written. Produce with acks=0 takes
// a slot that is simply skipped.
//
// Memory and backpressure, per connection:
//  - Frames are decoded into a FIFO and dispatched from it only while fewer than
//    `queued.max.requests.per.connection` requests are in flight, their frames
//    (held until their handler finishes) total less than IN_FLIGHT_REQUEST_BYTES_LIMIT,
//    and the bytes waiting to be written (socket buffer + finished responses held
//    behind an earlier one + what the Fetches in flight may still answer, their
//    max_bytes capped by fetch.max.bytes) are below WRITE_HIGH_WATER. So a
//    client may pipeline hundreds of small produces, but a large Fetch is
//    handled alone (as Kafka handles every request of a connection), and
//    one that does not read its responses is not served more of them. Every acks=all Produce
//    stays in flight until its fsync, so the count must cover what a client sends
//    during one fsync (kafkajs sends one request per record: at 5,000 records/s
//    and a 20 ms fsync that is 100 requests); the byte bound keeps the memory
//    that many large requests hold in check. A client that does not read its
//    responses (a slow consumer) therefore stops getting new requests served
//    once ~8 MiB are queued for it, however many fetches it pipelines.
//  - Socket reads pause while the FIFO holds more than QUEUED_REQUEST_BYTES_LIMIT
//    bytes, so the kernel pushes back on that client over TCP; other connections
//    (producers, other consumers) are unaffected.
//  - A single frame is bounded by sasl.server.max.receive.size while a SASL
//    connection is not yet authenticated and by socket.request.max.bytes after
//    (see FrameReader); nothing is allocated for a declared size.
//
// Timeouts (checked by one sweep over all connections, `checkTimeouts`, so an
// idle connection costs no timer):
//  - connections.max.idle.ms: no bytes in either direction and nothing in
//    flight for that long closes the connection, as Kafka's Selector does.
//  - socket.request.receive.timeout.ms (Kappa): a frame must be complete within
//    that long of its first byte, plus 1 s per MiB it declares. Kafka counts a
//    trickle of bytes as activity, so a slowloris client would hold its
//    connection and partial frame forever; this bound ends it.
//
// Bad input (an impossible size prefix, an unknown api key or version, an
// undecodable request, a request the SASL state does not allow) stops reading
// at once, but the requests received before it are still answered, in order;
// the connection closes after the last of those answers is written.
import type { Socket } from "node:net";
import { decodeRequestHeader, decodeRequest, encodeResponse, encodeResponseParts, ApiKey, ErrorCode, type ApiKeyWithBody, type ResponseInput } from "@kappa/kafka-protocol";
import type { BrokerCore } from "../broker.ts";
import { quotaUser } from "../quotas/manager.ts";
import type { RequestContext } from "../registry.ts";
import { ANONYMOUS, type Session } from "../session.ts";
import { FramePool, FrameReader } from "./frame-reader.ts";
import type { RequestTimes } from "./request-metrics.ts";

/** Queued response bytes above which the connection stops reading new requests. */
const WRITE_HIGH_WATER = 8 * 1024 * 1024;
/** Bytes of the frames of requests whose handlers run, above which no further request is dispatched. */
const IN_FLIGHT_REQUEST_BYTES_LIMIT = 64 * 1024 * 1024;
/** Bytes of received, not yet dispatched requests above which reading pauses. */
const QUEUED_REQUEST_BYTES_LIMIT = 16 * 1024 * 1024;
/**
 * Idle frame buffers kept for reuse (see FramePool): the broker shares one pool
 * among its connections, as large as one connection's frames in flight, so a
 * producer that keeps its 64 MiB in flight reuses the same buffers instead of
 * allocating (external memory, which V8 answers with full GCs).
 */
export const FRAME_POOL_BYTES = 64 * 1024 * 1024;
/** A frame may take this much longer per MiB it declares (socket.request.receive.timeout.ms). */
const RECEIVE_MS_PER_MIB = 1000;
/** After bad input, answers already due get this long to drain before the socket is destroyed. */
const DRAIN_BEFORE_CLOSE_MS = 5000;

/**
 * Record runs of at least this many bytes in a Fetch response are written to
 * the socket from the buffers they were read into (one writev with the rest
 * of the response), not copied into the encoded response first: a 4 MiB
 * response otherwise cost a regrown buffer and two more copies, and the
 * garbage collector a third of the broker's time under a full-speed consumer.
 */
const FETCH_RECORDS_BY_REFERENCE = 64 * 1024;

/** The bytes of an encoded response (one buffer or its parts). */
function byteLength(response: Buffer | Buffer[]): number {
  return Array.isArray(response) ? response.reduce((n, b) => n + b.length, 0) : response.length;
}

interface Slot {
  done: boolean;
  /** Encoded response including its size prefix, whole or as parts written in order; null = nothing to send. */
  response: Buffer | Buffer[] | null;
  /** Close the connection when this slot reaches the head instead of writing (control hook). */
  closeInstead: boolean;
  /** Timing for the broker's request metrics (requests that reach a handler). */
  timing: { api: string; times: RequestTimes } | null;
  /** Quota throttle time of this response: the connection is muted for this long once it is sent. */
  throttleMs: number;
}

interface Incoming {
  frame: Buffer;
  /** performance.now() when the frame was complete. */
  receivedAt: number;
}

export class Connection {
  readonly session: Session;
  private readonly reader: FrameReader;
  private readonly framePool: FramePool;
  private readonly pending: Slot[] = [];
  /** Received frames not yet dispatched, in arrival order. */
  private readonly incoming: Incoming[] = [];
  private incomingBytes = 0;
  /** Bytes of the frames whose handlers have not finished yet. */
  private inFlightRequestBytes = 0;
  /** What the Fetches in flight may answer (their max_bytes, capped by fetch.max.bytes). */
  private reservedResponseBytes = 0;
  /** Encoded responses that are finished but wait behind an earlier, unfinished one. */
  private heldResponseBytes = 0;
  private closed = false;
  private readPaused = false;
  private readonly abort = new AbortController();
  /** Responses after which the connection closes (a failed SASL exchange). */
  private readonly closeAfterSlots = new WeakSet<Slot>();
  /** Set by bad input: nothing more is read; the connection closes once the answers due are written. */
  private inputError: string | null = null;
  /** Last time bytes were read or written (connections.max.idle.ms). */
  private lastActivity = Date.now();
  /** KIP-219: while a quota throttle runs (Date.now() below this), no request is read or dispatched. */
  private mutedUntil = 0;
  private muteTimer: NodeJS.Timeout | null = null;

  /**
   * `externalReads`: the socket's bytes are delivered by calling `receive`
   * (a socket reading into the shared read buffer, see read-buffer.ts);
   * otherwise the connection listens to the socket's "data" events.
   * `framePool`: the broker's pool of large frame buffers (one per connection when not given).
   */
  constructor(
    private readonly socket: Socket,
    private readonly core: BrokerCore,
    connectionId: number,
    options: { externalReads?: boolean; framePool?: FramePool } = {},
  ) {
    const externalReads = options.externalReads ?? false;
    this.framePool = options.framePool ?? new FramePool(FRAME_POOL_BYTES);
    this.session = {
      connectionId,
      clientAddress: socket.remoteAddress ?? "unknown",
      clientPort: socket.remotePort ?? 0,
      clientId: "",
      principal: ANONYMOUS,
      state: "ready",
      saslMechanism: null,
    };
    const cfg = core.config;
    // Kafka reads SASL-phase requests with sasl.server.max.receive.size (SaslServerAuthenticator), everything else with socket.request.max.bytes.
    this.reader = new FrameReader(
      () =>
        this.session.state === "authenticating"
          ? { bytes: cfg["sasl.server.max.receive.size"], setting: "sasl.server.max.receive.size (before authentication)" }
          : { bytes: cfg["socket.request.max.bytes"], setting: "socket.request.max.bytes" },
      this.framePool,
    );
    socket.setNoDelay(true);
    if (!externalReads) socket.on("data", (chunk: Buffer) => this.receive(chunk, chunk.length));
    socket.on("drain", () => this.pump());
    socket.on("error", (err) => {
      // ECONNRESET and friends are the peer's business; note them at debug level only.
      this.core.logger.debug(`connection ${this.describe()}: socket error: ${err.message}`);
    });
    socket.on("close", () => this.onClosed());
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Memory held for this connection (observability and the backpressure test). */
  stats(): { inFlight: number; inFlightRequestBytes: number; queuedRequests: number; queuedRequestBytes: number; heldResponseBytes: number; socketBufferedBytes: number; readPaused: boolean } {
    return {
      inFlight: this.pending.length,
      inFlightRequestBytes: this.inFlightRequestBytes,
      queuedRequests: this.incoming.length,
      queuedRequestBytes: this.incomingBytes,
      heldResponseBytes: this.heldResponseBytes,
      socketBufferedBytes: this.socket.writableLength,
      readPaused: this.readPaused,
    };
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

  /**
   * Kafka sends the SASL error response and then closes: stop reading at once, let
   * the written bytes drain (TLS included), then destroy the socket.
   */
  private endAfterWrite(reason: string): void {
    if (this.closed) return;
    this.core.logger.info(`closing connection ${this.describe()} (client_id "${this.session.clientId}"): ${reason}`);
    this.closed = true;
    this.socket.pause();
    this.socket.end(() => this.socket.destroy());
    this.onClosed();
  }

  private onClosed(): void {
    this.closed = true;
    if (this.muteTimer) clearTimeout(this.muteTimer);
    this.muteTimer = null;
    if (!this.abort.signal.aborted) this.abort.abort();
    this.pending.length = 0;
    this.incoming.length = 0;
    this.core.connectionClosed(this);
  }

  /** Bytes `data[0, n)` read from the socket; valid only during this call (the reader copies what it keeps). */
  receive(data: Uint8Array, n: number): void {
    if (this.closed || this.inputError !== null) return;
    this.lastActivity = Date.now();
    this.queueFrames(this.reader.push(data, n));
  }

  /**
   * Where the socket's next read should go when it can skip the shared read
   * buffer: the rest of the large frame being assembled (FrameReader
   * `directTarget`); null otherwise. Called by the socket after every read, so
   * the view it returns is the read target until the next read is reported.
   */
  readTarget(): Buffer | null {
    if (this.closed || this.inputError !== null) return null;
    return this.reader.directTarget();
  }

  /** Whether the next read into the shared buffer should take only the start of a frame (FrameReader `nextReadBytes`). */
  wantsShortRead(): boolean {
    return this.reader.nextReadBytes() !== undefined;
  }

  /** `n` bytes were read into the view `readTarget` returned (no copy: they are in the frame already). */
  receiveDirect(n: number): void {
    if (this.closed || this.inputError !== null) return;
    this.lastActivity = Date.now();
    this.queueFrames(this.reader.pushDirect(n));
  }

  private queueFrames(frames: Buffer[]): void {
    const receivedAt = frames.length > 0 ? performance.now() : 0;
    for (const frame of frames) {
      this.incoming.push({ frame, receivedAt });
      this.incomingBytes += frame.length;
    }
    // The frames before an impossible prefix are still answered.
    if (this.reader.error) this.failInput(this.reader.error.message, false);
    this.pump();
  }

  /**
   * Bad input: stop reading and drop what came after it (with `dropQueued`,
   * the frames queued behind the bad one), answer what came before, then close.
   */
  private failInput(reason: string, dropQueued: boolean): void {
    if (this.closed || this.inputError !== null) return;
    this.inputError = reason;
    this.socket.pause();
    this.readPaused = true;
    if (dropQueued) {
      this.incoming.length = 0;
      this.incomingBytes = 0;
    }
    this.closeIfAnswered();
  }

  private closeIfAnswered(): void {
    if (this.closed || this.inputError === null || this.incoming.length > 0 || this.pending.length > 0) return;
    this.core.logger.warn(`closing connection ${this.describe()} (client_id "${this.session.clientId}"): ${this.inputError}`);
    this.closed = true;
    // end() lets the answers already written reach the client; destroy() if it does not read them.
    const timer = setTimeout(() => this.socket.destroy(), DRAIN_BEFORE_CLOSE_MS);
    timer.unref();
    this.socket.end(() => {
      clearTimeout(timer);
      this.socket.destroy();
    });
    this.onClosed();
  }

  /** Idle and slow-frame limits; called periodically for every connection (one sweep, no per-connection timers). */
  checkTimeouts(now: number): void {
    if (this.closed) return;
    const cfg = this.core.config;
    const idleMs = cfg["connections.max.idle.ms"];
    if (idleMs >= 0 && this.pending.length === 0 && this.incoming.length === 0 && this.reader.bufferedBytes === 0 && now - this.lastActivity > idleMs) {
      return this.close(`idle for more than connections.max.idle.ms ${idleMs}`, "info");
    }
    const frame = this.reader.pendingFrame();
    // While reads are paused for backpressure the frame cannot progress: that wait is ours, not the client's.
    if (frame && !this.readPaused && !this.isMuted()) {
      const allowed = cfg["socket.request.receive.timeout.ms"] + Math.ceil((Math.max(0, frame.size) / (1024 * 1024)) * RECEIVE_MS_PER_MIB);
      if (now - frame.startedAt > allowed) {
        const size = frame.size < 0 ? "a request whose size prefix" : `a request of ${frame.size} bytes`;
        this.close(`${size} did not arrive within ${allowed} ms (socket.request.receive.timeout.ms ${cfg["socket.request.receive.timeout.ms"]} + 1 s per MiB); ${this.reader.bufferedBytes} bytes received`);
      }
    }
  }

  private isMuted(): boolean {
    return this.mutedUntil > Date.now();
  }

  /**
   * KIP-219: after a throttled response is sent, the channel is muted for the
   * throttle time: the socket is not read and queued requests wait, so a client
   * that ignores the throttle time in the response is held back all the same.
   */
  private mute(ms: number): void {
    const until = Date.now() + ms;
    if (until <= this.mutedUntil) return;
    this.mutedUntil = until;
    this.socket.pause();
    if (this.muteTimer) clearTimeout(this.muteTimer);
    this.muteTimer = setTimeout(() => {
      this.muteTimer = null;
      if (this.closed) return;
      this.mutedUntil = 0;
      if (!this.readPaused && this.inputError === null) this.socket.resume();
      this.pump();
    }, ms);
  }

  /** Dispatches queued frames in arrival order while the connection has capacity. */
  private pump(): void {
    while (!this.closed && this.incoming.length > 0 && !this.isMuted() && this.hasCapacity()) {
      const next = this.incoming.shift();
      if (!next) break;
      this.incomingBytes -= next.frame.length;
      this.dispatch(next.frame, next.receivedAt);
    }
    this.updateFlowControl();
    this.closeIfAnswered();
  }

  private hasCapacity(): boolean {
    // A client with a quota in force is served one request at a time, as Kafka serves
    // every connection (the channel is muted while a request is handled): otherwise a
    // pipelining client (librdkafka) would have many requests accepted before the first
    // throttle time could mute it.
    if (this.pending.length > 0 && this.session.state === "ready" && this.core.quotas.hasQuota(quotaUser(this.session.principal), this.session.clientId)) return false;
    return (
      this.pending.length < this.core.config["queued.max.requests.per.connection"] &&
      this.inFlightRequestBytes < IN_FLIGHT_REQUEST_BYTES_LIMIT &&
      this.socket.writableLength + this.heldResponseBytes + this.reservedResponseBytes < WRITE_HIGH_WATER
    );
  }

  private updateFlowControl(): void {
    if (this.closed || this.inputError !== null) return;
    const busy = this.incomingBytes >= QUEUED_REQUEST_BYTES_LIMIT;
    if (busy && !this.readPaused) {
      this.readPaused = true;
      this.socket.pause();
    } else if (!busy && this.readPaused) {
      this.readPaused = false;
      if (!this.isMuted()) this.socket.resume();
    }
  }

  /** A raw SASL token after SaslHandshake v0: answered with a size-prefixed challenge, in order; a failure closes. */
  private dispatchRawSaslToken(frame: Buffer): void {
    const slot = this.newSlot();
    this.core.sasl.authenticate(this.session, frame).then(
      (outcome) => {
        if (this.closed) return;
        if (outcome.errorCode !== ErrorCode.NONE) {
          slot.closeInstead = true;
          // Counted in the SASL failure summary (failed-auth.ts), not one line per failure.
          this.core.logger.debug(`connection ${this.describe()}: raw SASL (SaslHandshake v0) authentication failed; closing`);
        } else {
          const prefix = Buffer.alloc(4);
          prefix.writeInt32BE(outcome.authBytes.length, 0);
          slot.response = Buffer.concat([prefix, outcome.authBytes]);
          this.heldResponseBytes += slot.response.length;
        }
        if (this.session.state === "ready") this.session.rawSaslTokens = false;
        slot.done = true;
        this.flush();
      },
      (err: unknown) => {
        this.core.logger.error(`raw SASL authentication failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.close("internal error in SASL authentication");
      },
    );
  }

  private dispatch(frame: Buffer, receivedAt: number): void {
    if (this.session.rawSaslTokens === true && this.session.state === "authenticating") return this.dispatchRawSaslToken(frame);
    let header: ReturnType<typeof decodeRequestHeader>;
    try {
      header = decodeRequestHeader(frame);
    } catch (err) {
      return this.failInput(`malformed request header: ${(err as Error).message}`, true);
    }
    const { apiKey, apiVersion, correlationId } = header;
    this.session.clientId = header.clientId ?? "";
    if (this.core.gate(this.session, apiKey) === "close") {
      return this.failInput(`api key ${apiKey} not allowed in connection state ${this.session.state}`, true);
    }
    const api = this.core.registry.get(apiKey);
    if (!api) {
      // Kafka fails to parse the header of an unknown api key and closes the connection.
      return this.failInput(`unknown api key ${apiKey} (version ${apiVersion}, correlation id ${correlationId})`, true);
    }
    if (apiKey === ApiKey.ApiVersions && apiVersion > api.advertised.max) {
      // BROKER-SPEC §2: answer an ApiVersions version we do not know with a v0 body
      // carrying UNSUPPORTED_VERSION and our ApiVersions range, without parsing the body.
      const slot = this.newSlot();
      slot.response = encodeResponse(ApiKey.ApiVersions, 0, correlationId, {
        errorCode: ErrorCode.UNSUPPORTED_VERSION,
        apiKeys: [{ apiKey: ApiKey.ApiVersions, minVersion: api.advertised.min, maxVersion: api.advertised.max }],
      });
      slot.done = true;
      this.heldResponseBytes += slot.response.length;
      this.flush();
      return;
    }
    if (apiVersion < api.implemented.min || apiVersion > api.implemented.max) {
      return this.failInput(
        `unsupported ${api.name} version ${apiVersion} (serving ${api.implemented.min}-${api.implemented.max}, advertising ${api.advertised.min}-${api.advertised.max})`,
        true,
      );
    }
    let body: unknown;
    try {
      body = decodeRequest(frame).body;
    } catch (err) {
      return this.failInput(`malformed ${api.name} v${apiVersion} request: ${(err as Error).message}`, true);
    }
    const unparsable = api.unparsable(body);
    if (unparsable !== null) return this.failInput(`invalid ${api.name} v${apiVersion} request: ${unparsable}`, true);
    const ctx: RequestContext = {
      broker: this.core,
      session: this.session,
      apiKey,
      apiVersion,
      correlationId,
      signal: this.abort.signal,
      requestBytes: frame.length,
      throttleMs: 0,
    };
    const action = this.core.control.decide({ apiKey, apiVersion, correlationId, session: this.session, body });
    if (action?.kind === "close-before") return this.close(`control: closing before ${api.name}`, "info");
    const slot = this.newSlot();
    const times: RequestTimes = { received: receivedAt, started: performance.now(), finished: 0, queuedForSend: 0 };
    slot.timing = { api: api.name, times };
    if (action?.kind === "drop-response") slot.closeInstead = true;
    const delayMs = action?.kind === "delay" ? action.ms : 0;
    const reserved = responseReservation(apiKey, body, this.core.config["fetch.max.bytes"]);
    this.inFlightRequestBytes += frame.length;
    this.reservedResponseBytes += reserved;
    const handled = (): void => {
      this.inFlightRequestBytes -= frame.length;
      this.reservedResponseBytes -= reserved;
    };
    const syncStart = performance.now();
    const handling = action?.kind === "hold" ? action.released.then(() => api.handle(ctx, body)) : api.handle(ctx, body);
    // The handler's time on the event loop up to its first wait: this broker's "request handler thread time".
    const handlerMs = performance.now() - syncStart;
    handling.then(
      async (result) => {
        times.finished = performance.now();
        handled();
        // A finished Produce handler has written or rejected every append, and the
        // storage engine keeps no view of the request's records after that; other
        // requests may leave views of their frame in broker state (group member
        // metadata, for one), so only Produce frames are reused.
        if (apiKey === ApiKey.Produce) this.framePool.give(frame);
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        if (this.closed) return;
        if (!REQUEST_QUOTA_EXEMPT.has(apiKey)) {
          // request_percentage (Kafka's RequestQuotaManager): handler time as a percentage of one thread,
          // per second; over quota, the response carries the larger of both throttle times.
          const throttle = this.core.quotas.recordAndGetThrottleTimeMs("request", quotaUser(this.session.principal), this.session.clientId, handlerMs / 10);
          if (throttle > ctx.throttleMs) {
            ctx.throttleMs = throttle;
            if (result !== null && typeof result === "object") (result as { throttleTimeMs?: number }).throttleTimeMs = throttle;
          }
        }
        if (result !== null) {
          try {
            // The registry only holds handlers for api keys the codec has bodies for.
            slot.response =
              apiKey === ApiKey.Fetch
                ? encodeResponseParts(ApiKey.Fetch, apiVersion, correlationId, result as ResponseInput<typeof ApiKey.Fetch>, FETCH_RECORDS_BY_REFERENCE)
                : encodeResponse(apiKey as ApiKeyWithBody, apiVersion, correlationId, result as ResponseInput<ApiKeyWithBody>);
          } catch (err) {
            this.core.logger.error(`cannot encode ${api.name} v${apiVersion} response: ${(err as Error).stack ?? String(err)}`);
            return this.close(`internal error encoding ${api.name} response`, "warn");
          }
        }
        if (this.core.takeCloseAfterResponse(this.session)) this.closeAfterSlots.add(slot);
        slot.throttleMs = ctx.throttleMs;
        slot.done = true;
        if (slot.response) this.heldResponseBytes += byteLength(slot.response);
        this.flush();
      },
      (err: unknown) => {
        handled();
        this.core.logger.error(`${api.name} v${apiVersion} handler failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
        this.close(`internal error in ${api.name}`);
      },
    );
  }

  private newSlot(): Slot {
    const slot: Slot = { done: false, response: null, closeInstead: false, timing: null, throttleMs: 0 };
    this.pending.push(slot);
    return slot;
  }

  private flush(): void {
    while (!this.closed) {
      const head = this.pending[0];
      if (!head || !head.done) break;
      this.pending.shift();
      if (head.response) this.heldResponseBytes -= byteLength(head.response);
      if (head.closeInstead) return this.close("control: dropping response", "info");
      if (head.response) {
        const timing = head.timing;
        if (timing) timing.times.queuedForSend = performance.now();
        // The callback runs once the bytes are in the kernel: Kafka's "response sent".
        const sent = timing ? () => this.core.requestMetrics.record(timing.api, timing.times, performance.now()) : undefined;
        if (Array.isArray(head.response)) {
          // Corked, the parts leave in one writev.
          this.socket.cork();
          const parts = head.response;
          parts.forEach((part, i) => this.socket.write(part, i === parts.length - 1 ? sent : undefined));
          this.socket.uncork();
        } else this.socket.write(head.response, sent);
        this.lastActivity = Date.now();
      }
      // Written to the socket (or, for acks=0, nothing to write): the throttle starts now.
      if (head.throttleMs > 0) this.mute(head.throttleMs);
      if (this.closeAfterSlots.has(head)) return this.endAfterWrite("closed by the broker after its response (authentication failed or SASL protocol error)");
    }
    this.pump();
  }
}

/** APIs Kafka's request quota leaves out (authentication and version discovery must always work). */
const REQUEST_QUOTA_EXEMPT: ReadonlySet<number> = new Set([ApiKey.ApiVersions, ApiKey.SaslHandshake, ApiKey.SaslAuthenticate]);

/** The response bytes a request may bring (only a Fetch answers much): its max_bytes, capped by fetch.max.bytes. */
function responseReservation(apiKey: number, body: unknown, fetchMaxBytes: number): number {
  if (apiKey !== ApiKey.Fetch || typeof body !== "object" || body === null) return 0;
  const maxBytes = "maxBytes" in body && typeof body.maxBytes === "number" ? body.maxBytes : 0x7fffffff;
  return Math.min(maxBytes, fetchMaxBytes);
}
