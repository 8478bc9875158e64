/**
 * Flushing of one partition log (Kafka's flush.messages / flush.ms plus the
 * acks=all wait): durable appends wait here until an fsync that started
 * after they were written has finished.
 *
 * Group commit: at most one fsync is in flight, and each one covers every
 * byte written before it began, so N pipelined acks=all produces share one
 * fdatasync instead of paying for N. Segments older than the active one were
 * synced when they were rolled, so syncing the active segment is enough.
 *
 * The sync reports the log end offset it read as it began (not when it was
 * requested): a sync that waited for its turn (the log manager bounds the
 * partitions' fsyncs in flight, fsync-slots.ts) covers everything written meanwhile.
 */
import type { StorageError } from "./errors.ts";

export interface GroupCommitOptions {
  /**
   * fdatasync of the active segment file; resolves with the log end offset
   * read just before the fdatasync began (every offset below it is then on disk).
   */
  syncActive: () => Promise<number>;
  /** The log end offset now: what an fsync started now makes durable. */
  logEndOffset: () => number;
  /** flush.messages and flush.ms of the topic (read at each write: configs can change). */
  policy: () => { flushMessages: number; flushMs: number };
  /** Called when an fsync fails; the log then refuses work and calls `fail`. */
  onSyncError: (err: unknown) => void;
}

interface FlushWaiter {
  endOffset: number;
  resolve: () => void;
  reject: (e: unknown) => void;
}

export class GroupCommit {
  /** Every offset below this is on disk. */
  private flushed: number;
  private waiters: FlushWaiter[] = [];
  private flushing = false;
  private flushRequested = false;
  private messagesSinceFlush = 0;
  private timer: NodeJS.Timeout | null = null;
  private failure: StorageError | null = null;

  constructor(
    flushedOffset: number,
    private readonly opts: GroupCommitOptions,
  ) {
    this.flushed = flushedOffset;
  }

  get flushedOffset(): number {
    return this.flushed;
  }

  /** Resolves once every offset below `endOffset` is on disk. */
  waitFlushed(endOffset: number): Promise<void> {
    if (endOffset <= this.flushed) return Promise.resolve();
    if (this.failure) return Promise.reject(this.failure);
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ endOffset, resolve, reject });
      this.requestFlush();
    });
  }

  /** After a write of `records` records: applies flush.messages / flush.ms. */
  afterWrite(records: number): void {
    this.messagesSinceFlush += records;
    const policy = this.opts.policy();
    if (this.messagesSinceFlush >= policy.flushMessages) this.requestFlush();
    else if (policy.flushMs < 1e15 && !this.timer && this.opts.logEndOffset() > this.flushed) {
      this.timer = setTimeout(() => {
        this.timer = null;
        this.requestFlush();
      }, policy.flushMs);
      this.timer.unref();
    }
  }

  /** The caller synced everything below `offset` itself (segment roll). */
  markFlushed(offset: number): void {
    if (offset > this.flushed) this.flushed = offset;
    this.resolveWaiters();
  }

  /** The log failed: every waiter and every later wait is rejected with `failure`. */
  fail(failure: StorageError): void {
    this.failure ??= failure;
    for (const w of this.waiters) w.reject(this.failure);
    this.waiters = [];
  }

  /** Stops the flush.ms timer (close, delete). */
  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private requestFlush(): void {
    this.flushRequested = true;
    if (this.flushing) return;
    this.flushing = true;
    void this.flushLoop();
  }

  private async flushLoop(): Promise<void> {
    try {
      while (this.flushRequested && !this.failure) {
        this.flushRequested = false;
        if (this.opts.logEndOffset() <= this.flushed) {
          this.resolveWaiters();
          continue;
        }
        this.messagesSinceFlush = 0;
        const covered = await this.opts.syncActive();
        if (covered > this.flushed) this.flushed = covered;
        this.resolveWaiters();
        if (this.waiters.length > 0) this.flushRequested = true;
      }
    } catch (err) {
      this.opts.onSyncError(err);
    } finally {
      this.flushing = false;
    }
  }

  private resolveWaiters(): void {
    if (this.waiters.length === 0) return;
    const keep: FlushWaiter[] = [];
    for (const w of this.waiters) {
      if (w.endOffset <= this.flushed) w.resolve();
      else keep.push(w);
    }
    this.waiters = keep;
  }
}
