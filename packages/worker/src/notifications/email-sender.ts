/*
 * E-mails notifications through SMTP (nodemailer) when SMTP_URL is set: each
 * Notification row is one message to its recipient. Rows are leased like the
 * other outboxes (FOR UPDATE SKIP LOCKED + a lease), retried with backoff and
 * given up after a few attempts; rows older than WORKER_EMAIL_MAX_AGE_HOURS
 * are skipped, so configuring SMTP late does not flood inboxes with history.
 * nodemailer: a well-kept SMTP client (STARTTLS, auth, pooling) we would not
 * want to write ourselves.
 */
import { Prisma } from "@prisma/client";
import nodemailer, { type Transporter } from "nodemailer";
import type { Db } from "@kappa/catalog";
import { errorMessage, type Logger } from "../log.ts";
import { backoffDelayMs } from "../reconcile/diff.ts";

export interface EmailSenderOptions {
  smtpUrl: string;
  from: string;
  portalUrl: string;
  maxAgeHours: number;
  maxAttempts?: number;
  batchSize?: number;
}

interface Claimed {
  id: bigint;
  attempts: number;
  email: string;
  name: string;
  title: string;
  body: string;
  link: string | null;
  kind: string;
}

const NOW = Prisma.sql`(now() AT TIME ZONE 'UTC')`;

export class EmailSender {
  private readonly transport: Transporter;

  constructor(
    private readonly db: Db,
    private readonly options: EmailSenderOptions,
    private readonly log: Logger,
  ) {
    this.transport = nodemailer.createTransport(options.smtpUrl);
  }

  /** Sends what is due; the number of notifications attempted. */
  async runOnce(): Promise<number> {
    await this.db.$executeRaw`
      UPDATE "Notification" SET "emailStatus" = 'SKIPPED'
       WHERE "emailStatus" = 'PENDING' AND "createdAt" < ${NOW} - make_interval(hours => ${this.options.maxAgeHours})`;
    const claimed = await this.db.$queryRaw<Claimed[]>`
      WITH c AS (
        SELECT n.id FROM "Notification" AS n
         WHERE n."emailStatus" = 'PENDING' AND n."emailNextAttemptAt" <= ${NOW} AND (n."emailLeaseUntil" IS NULL OR n."emailLeaseUntil" < ${NOW})
         ORDER BY n.id LIMIT ${this.options.batchSize ?? 20}
         FOR UPDATE SKIP LOCKED)
      UPDATE "Notification" AS n SET "emailLeaseUntil" = ${NOW} + interval '2 minutes'
        FROM c, "User" AS u, "NotificationEvent" AS e
       WHERE n.id = c.id AND u.id = n."userId" AND e.id = n."eventId"
      RETURNING n.id, n."emailAttempts" AS attempts, u.email, u.name, e.title, e.body, e.link, e.kind`;
    for (const n of claimed) await this.send(n);
    return claimed.length;
  }

  private async send(n: Claimed): Promise<void> {
    const link = n.link ? new URL(n.link, this.options.portalUrl).toString() : null;
    const attempt = n.attempts + 1;
    try {
      await this.transport.sendMail({
        from: this.options.from,
        to: { name: n.name, address: n.email },
        subject: `[Kappa Mesh] ${n.title}`,
        text: [n.body, link ? `\nOpen: ${link}` : "", "\n-- \nKappa Mesh notifications (see them all in the portal's notification centre)"].join("\n"),
        headers: { "X-Kappa-Event": n.kind },
      });
      await this.db.$executeRaw`
        UPDATE "Notification" SET "emailStatus" = 'SENT', "emailedAt" = ${NOW}, "emailAttempts" = ${attempt}, "emailError" = NULL, "emailLeaseUntil" = NULL WHERE id = ${n.id}`;
    } catch (error) {
      const message = errorMessage(error).slice(0, 1000);
      const final = attempt >= (this.options.maxAttempts ?? 5);
      const delay = backoffDelayMs(attempt, 5_000, 600_000);
      await this.db.$executeRaw`
        UPDATE "Notification" SET "emailStatus" = ${final ? "FAILED" : "PENDING"}, "emailAttempts" = ${attempt}, "emailError" = ${message}, "emailLeaseUntil" = NULL,
               "emailNextAttemptAt" = ${NOW} + make_interval(secs => ${delay / 1000})
         WHERE id = ${n.id}`;
      this.log.warn(final ? "e-mail failed for good" : "e-mail failed; will retry", { notification: n.id.toString(), attempt, error: message });
    }
  }

  close(): void {
    this.transport.close();
  }
}
