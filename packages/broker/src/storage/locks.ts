/** Runs tasks one at a time, in submission order. */
export class SerialQueue {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    // The chain must continue after a failure; the caller still sees the rejection.
    this.tail = result.then(
      () => undefined,
      () => undefined,
    );
    return result;
  }
}

/**
 * Shared/exclusive gate: fetches hold it shared while they resolve a segment
 * and read its file; segment deletion and compaction swaps hold it exclusive
 * so that no reader pairs an old in-memory index with a new file.
 */
export class ReadWriteGate {
  private readers = 0;
  private exclusiveHeld: Promise<void> | null = null;
  private drained: (() => void) | null = null;

  async shared<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld) await this.exclusiveHeld;
    this.readers++;
    try {
      return await fn();
    } finally {
      this.readers--;
      if (this.readers === 0 && this.drained) this.drained();
    }
  }

  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    while (this.exclusiveHeld) await this.exclusiveHeld;
    let release!: () => void;
    this.exclusiveHeld = new Promise<void>((r) => (release = r));
    try {
      if (this.readers > 0) {
        await new Promise<void>((r) => (this.drained = r));
        this.drained = null;
      }
      return await fn();
    } finally {
      this.exclusiveHeld = null;
      release();
    }
  }
}
