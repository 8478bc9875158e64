import type { Classification } from "@prisma/client";

/**
 * Access recertification as the policy document sets it (rule with check
 * `recertification`): how often each active subscription is re-confirmed by
 * the product's owners, per classification; the grace after the due date
 * before an overdue one is revoked (when `autoRevoke`); and after how many
 * days without observed consumption a grant counts as unused (listed first).
 */
export interface RecertificationSchedule {
  everyDays: Record<Classification, number>;
  graceDays: number;
  autoRevoke: boolean;
  unusedDays: number;
}

export const DEFAULT_SCHEDULE: RecertificationSchedule = {
  everyDays: { PUBLIC: 365, INTERNAL: 180, CONFIDENTIAL: 90, RESTRICTED: 30 },
  graceDays: 14,
  autoRevoke: false,
  unusedDays: 30,
};

const DAY = 24 * 3600_000;

export interface RecertificationState {
  dueAt: Date;
  overdue: boolean;
  /** Overdue past the grace period: revoked by the sweep when the policy says autoRevoke. */
  lapsed: boolean;
  expired: boolean;
}

/** When a subscription is next due: its last certification (or its grant) plus the classification's interval. */
export function recertificationState(
  s: { certifiedAt: Date | null; decidedAt: Date | null; createdAt: Date; expiresAt: Date | null },
  classification: Classification,
  schedule: RecertificationSchedule,
  now: Date,
): RecertificationState {
  const from = s.certifiedAt ?? s.decidedAt ?? s.createdAt;
  const dueAt = new Date(from.getTime() + schedule.everyDays[classification] * DAY);
  return {
    dueAt,
    overdue: now > dueAt,
    lapsed: now.getTime() > dueAt.getTime() + schedule.graceDays * DAY,
    expired: s.expiresAt !== null && now >= s.expiresAt,
  };
}
