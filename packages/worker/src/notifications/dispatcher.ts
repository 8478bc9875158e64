/*
 * The worker's notification loop: drains the webhook outbox and, when SMTP is
 * configured, the e-mail outbox, every WORKER_NOTIFY_POLL_MS. A failing poll
 * (database away) is logged and retried on the next tick. The two outboxes
 * are drained independently (a slow webhook endpoint never holds e-mail), and
 * a webhook poll only starts its deliveries (webhook-sender.ts).
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
  private webhookPass: Promise<void> | null = null;
  private emailPass: Promise<void> | null = null;
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

  /** One pass over both outboxes, each on its own (a pass still running is not started twice). */
  runNow(): Promise<void> {
    this.webhookPass ??= this.drain("webhook", () => this.webhooks.runOnce()).finally(() => {
      this.webhookPass = null;
    });
    if (this.email !== null) {
      const email = this.email;
      this.emailPass ??= this.drain("e-mail", () => email.runOnce()).finally(() => {
        this.emailPass = null;
      });
    }
    return Promise.all([this.webhookPass, this.emailPass]).then(() => undefined);
  }

  /** Keeps polling while a poll fills its batch, so a burst drains quickly. */
  private async drain(what: string, poll: () => Promise<number>): Promise<void> {
    try {
      while ((await poll()) > 0) {
        if (this.timer === null) break;
      }
      this.lastError = null;
    } catch (error) {
      this.lastError = errorMessage(error);
      this.log.warn(`${what} delivery poll failed`, { error: this.lastError });
    }
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await Promise.all([this.webhookPass, this.emailPass]);
    await this.webhooks.idle();
    this.email?.close();
  }
}
