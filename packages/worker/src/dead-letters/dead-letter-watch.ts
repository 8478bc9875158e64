/*
 * The dead-letter topics (issue 29): after each observation cycle, the log
 * start and end offsets of `<topic>.dlq` for every live product with a DLQ
 * rule, one sample per product and minute bucket (DeadLetterSample). The DLQ
 * panel reads its count (end − start), rate and chart from them, and the
 * DLQ_GROWTH alert rule the growth of the end offset. Two ListOffsets per
 * leader per cycle; DLQs are few (only products with a DLQ rule).
 */
import { dlqTopicOf } from "@kappa/catalog";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";
import { LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";
import { NOW } from "../state/apply-batch.ts";

const MINUTE = 60_000;
/** How long samples are kept: the panel's chart and the alert's window need far less. */
const HISTORY = "48 hours";

const sum = (values: readonly (bigint | null)[] | undefined): bigint | null => {
  if (!values || values.length === 0) return null;
  let total = 0n;
  for (const v of values) {
    if (v === null || v < 0n) return null;
    total += v;
  }
  return total;
};

export class DeadLetterWatch implements ObservationStep {
  readonly name = "dead-letters";
  constructor(readonly everyMs?: number) {}

  async run(cycle: ObservationCycle): Promise<void> {
    const products = await cycle.db.dataProduct.findMany({
      where: { status: { in: [...LIVE_PRODUCT_STATUSES] }, qualityRules: { some: { onFailure: "DLQ" } } },
      select: { id: true, topicName: true },
    });
    if (products.length > 0) {
      const topics = products.map((p) => dlqTopicOf(p.topicName));
      // A DLQ not created yet (the rule was just approved) is simply not sampled this cycle.
      const counts = await cycle.cluster.partitionCounts(topics);
      const present = topics.filter((t) => (counts.get(t) ?? 0) > 0).map((topic) => ({ topic, partitions: counts.get(topic) ?? 0 }));
      if (present.length > 0) {
        const [ends, starts] = await Promise.all([cycle.cluster.listOffsets(present, "latest"), cycle.cluster.listOffsets(present, "earliest")]);
        const bucket = new Date(Math.floor(cycle.now / MINUTE) * MINUTE);
        const at = new Date(cycle.now);
        const rows = products.flatMap((p) => {
          const topic = dlqTopicOf(p.topicName);
          const end = sum(ends.get(topic));
          const start = sum(starts.get(topic));
          // A figure the cluster did not give is not written (never as 0).
          return end === null || start === null ? [] : [{ productId: p.id, start, end }];
        });
        if (rows.length > 0) {
          await cycle.db.$executeRaw`
            INSERT INTO "DeadLetterSample" ("productId", bucket, "startOffset", "endOffset", "observedAt")
            SELECT u.p, ${bucket}, u.s, u.e, ${at} FROM unnest(${rows.map((r) => r.productId)}::text[], ${rows.map((r) => r.start)}::bigint[], ${rows.map((r) => r.end)}::bigint[]) AS u(p, s, e)
            ON CONFLICT ("productId", bucket) DO UPDATE SET "startOffset" = EXCLUDED."startOffset", "endOffset" = EXCLUDED."endOffset", "observedAt" = EXCLUDED."observedAt"`;
        }
      }
    }
    await cycle.db.$executeRaw`DELETE FROM "DeadLetterSample" WHERE bucket < ${NOW} - ${HISTORY}::interval`;
  }
}
