/*
 * Every kind of notification the platform emits, with the words a person
 * reads in the centre and the filter a webhook subscribes to. Other areas add
 * their kinds here (schema versions, recertification) and call notify().
 */
export const NOTIFICATION_KINDS = {
  "product.review-requested": "A data product waits for review",
  "product.approved": "Data product approved",
  "product.rejected": "Data product rejected",
  "product.deprecated": "Data product deprecated",
  "product.retired": "Data product retired",
  "schema.version-submitted": "New schema version submitted",
  "schema.version-approved": "New schema version",
  "schema.version-rejected": "Schema version rejected",
  "subscription.requested": "Subscription requested",
  "subscription.approved": "Subscription approved",
  "subscription.rejected": "Subscription rejected",
  "subscription.revoked": "Subscription revoked",
  "replay.applied": "Replay applied",
  "replay.refused": "Replay refused",
  "redrive.requested": "A redrive of dead letters waits for approval",
  "redrive.decided": "Redrive of dead letters approved or rejected",
  "redrive.finished": "Redrive of dead letters finished",
  "derived.job-stopped": "Derived product's job stopped",
  "derived.job-redeployed": "Derived product's job redeployed",
  "cluster.broker-down": "A Kafka broker is down",
  "cluster.broker-back": "A Kafka broker is back",
  "derived.job-paused": "Derived product's job paused",
  "derived.job-resumed": "Derived product's job resumed",
  "derived.job-replayed": "Derived product's job replayed",
  "derived.job-statement-changed": "Derived product's job runs a new statement",
  "derived.job-command-failed": "Derived product's job could not be paused, resumed, replayed or given its new statement",
  "alert.fired": "Alert fired",
  "alert.resolved": "Alert resolved",
  "access.recertification": "Access recertification due",
  "webhook.test": "Webhook test",
} as const;

export type NotificationKind = keyof typeof NOTIFICATION_KINDS;

export const NOTIFICATION_KIND_NAMES = Object.keys(NOTIFICATION_KINDS) as NotificationKind[];

export function isNotificationKind(kind: string): kind is NotificationKind {
  return kind in NOTIFICATION_KINDS;
}
