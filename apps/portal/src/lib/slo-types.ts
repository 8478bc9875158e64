/** What GET /api/v1/subscriptions/:id/objectives and GET /api/v1/products/:id/slo answer (catalog queries/slo.ts). */

export interface AlertItem {
  id: string;
  /** LAG_RECORDS, LAG_SECONDS, FRESHNESS, DLQ_GROWTH. */
  kind: string;
  status: "FIRING" | "RESOLVED";
  subscriptionId: string | null;
  groupId: string | null;
  threshold: number;
  value: number;
  peakValue: number;
  message: string;
  firedAt: string;
  resolvedAt: string | null;
  /** A firing alert an owner acknowledged: when and who. */
  acknowledgedAt: string | null;
  acknowledgedBy: string | null;
  /** The silence on the alert's rule while it lasts: it does not notify until then. */
  silence: { until: string; by: string | null; reason: string } | null;
  /** Whether this viewer may acknowledge and silence it (the owners it is about). */
  canSilence: boolean;
}

export type Verdict = "MET" | "BREACHED" | "UNKNOWN" | null;

export interface SubscriptionSlo {
  subscriptionId: string;
  status: string;
  canEdit: boolean;
  objective: { maxLagRecords: number | null; maxLagSeconds: number | null; updatedAt: string } | null;
  /** A group with no members for longer than this is inactive and does not alert. */
  inactiveAfterMs: number;
  groups: {
    groupId: string;
    state: string;
    members: number;
    /** Set while the group is inactive: since when it has had no members (ISO). */
    inactiveSince: string | null;
    totalLag: number;
    timeLagMs: number | null;
    records: Verdict;
    seconds: Verdict;
    observedAt: string;
    partitions: { partition: number; lag: number | null; timeLagMs: number | null; timeLagMethod: string }[];
  }[];
  history: { groupId: string; bucket: string; totalLag: number; timeLagMs: number | null }[];
  alerts: AlertItem[];
  firing: number;
}

export interface ProductSlo {
  productId: string;
  freshness: { targetSeconds: number; status: "MET" | "AT_RISK" | "BREACHED" | "NO_DATA" | "UNKNOWN"; ageMs: number | null; lastRecordAt: string | null; observedAt: string | null };
  history: { bucket: string; ageMs: number | null; status: string }[];
  alerts: AlertItem[];
  firing: number;
}
