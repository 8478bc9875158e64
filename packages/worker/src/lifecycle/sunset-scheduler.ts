/*
 * Retires deprecated products whose sunset has passed (the catalog's
 * retireDueProducts: subscriptions revoked, RETIRE_PRODUCT queued, everyone
 * notified), every WORKER_SUNSET_CHECK_MS. Several workers may run it: the
 * catalog retires each product exactly once.
 */
import { retireDueProducts, type Db } from "@kappa/catalog";
import { errorMessage, type Logger } from "../log.ts";

export class SunsetScheduler {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<string[]> | null = null;
  lastError: string | null = null;

  constructor(
    private readonly db: Db,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runNow(), this.intervalMs);
    void this.runNow();
  }

  runNow(): Promise<string[]> {
    this.running ??= retireDueProducts(this.db)
      .then((ids) => {
        this.lastError = null;
        if (ids.length > 0) this.log.info("retired products at their sunset", { products: ids });
        return ids;
      })
      .catch((error: unknown) => {
        this.lastError = errorMessage(error);
        this.log.warn("sunset check failed", { error: this.lastError });
        return [];
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
