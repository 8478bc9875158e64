/*
 * The worker's notification loop: drains the webhook outbox and, when SMTP is
 * configured, the e-mail outbox, every WORKER_NOTIFY_POLL_MS. A failing poll
 * (database away) is logged and retried on the next tick.
 */
import type { Db } from "@kappa/catalog";
import { errorMessage, type Logger } from "../log.ts";
import { EmailSender, type EmailSenderOptions } from "./email-sender.ts";
import { WebhookSender, type WebhookSenderOptions } from "./webhook-sender.ts";

export interface NotificationOptions {
  pollMs: number;
  webhooks: WebhookSenderOptions;
  /** Absent: no e-mail. */
  email?: EmailSenderOptions;
}

export class NotificationDispatcher {
  readonly webhooks: WebhookSender;
  readonly email: EmailSender | null;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  lastError: string | null = null;

  constructor(
    db: Db,
    private readonly options: NotificationOptions,
    private readonly log: Logger,
  ) {
    this.webhooks = new WebhookSender(db, options.webhooks, log);
    this.email = options.email ? new EmailSender(db, options.email, log) : null;
  }

  start(): void {
    this.timer = setInterval(() => void this.runNow(), this.options.pollMs);
    void this.runNow();
  }

  /** One pass over both outboxes (skipped when the previous one is still running). */
  runNow(): Promise<void> {
    this.running ??= (async () => {
      try {
        // Keep going while a poll fills its batch, so a burst drains quickly.
        while ((await this.webhooks.runOnce()) > 0 || (this.email !== null && (await this.email.runOnce()) > 0)) {
          if (this.timer === null) break;
        }
        this.lastError = null;
      } catch (error) {
        this.lastError = errorMessage(error);
        this.log.warn("notification delivery poll failed", { error: this.lastError });
      }
    })().finally(() => {
      this.running = null;
    });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
    this.email?.close();
  }
}
