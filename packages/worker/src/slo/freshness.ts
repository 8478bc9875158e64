/*
 * A product's freshness SLA: the age of its newest record on any partition
 * (ListOffsets MAX_TIMESTAMP, −3, which Kafka answers from its time index
 * without reading data) against the product's freshness target. MET up to
 * 80 % of the target, AT_RISK up to the target, BREACHED beyond; NO_DATA for
 * an empty topic. The latest value per product plus one sample per minute.
 */
import { partitionKey } from "../kafka/cluster.ts";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";
import { NOW } from "../state/apply-batch.ts";

const MINUTE = 60_000;
export const AT_RISK_RATIO = 0.8;

export function freshnessStatus(ageMs: number | null, targetSeconds: number): "MET" | "AT_RISK" | "BREACHED" | "NO_DATA" {
  if (ageMs === null) return "NO_DATA";
  if (ageMs > targetSeconds * 1000) return "BREACHED";
  return ageMs > targetSeconds * 1000 * AT_RISK_RATIO ? "AT_RISK" : "MET";
}

export class FreshnessWatch implements ObservationStep {
  readonly name = "freshness";
  constructor(readonly everyMs?: number) {}

  async run(cycle: ObservationCycle): Promise<void> {
    const states = [...cycle.states.values()].filter((s) => s.partitions.length > 0);
    if (states.length === 0) return;
    const products = await cycle.db.dataProduct.findMany({ where: { id: { in: states.map((s) => s.productId) } }, select: { id: true, freshnessSeconds: true } });
    const target = new Map(products.map((p) => [p.id, p.freshnessSeconds]));
    const refs = states.flatMap((s) => s.partitions.map((_, partition) => ({ topic: s.topic, partition })));
    const newest = await cycle.cluster.maxTimestamps(refs);
    const rows = states.flatMap((s) => {
      const t = target.get(s.productId);
      if (t === undefined) return [];
      let last: bigint | null = null;
      for (let p = 0; p < s.partitions.length; p++) {
        const m = newest.get(partitionKey(s.topic, p));
        if (m && (last === null || m.timestamp > last)) last = m.timestamp;
      }
      const ageMs = last === null ? null : Math.max(0, cycle.now - Number(last));
      return [{ productId: s.productId, lastRecordAt: last === null ? null : new Date(Number(last)), ageMs: ageMs === null ? null : BigInt(ageMs), status: freshnessStatus(ageMs, t) }];
    });
    if (rows.length === 0) return;
    const at = new Date(cycle.now);
    const bucket = new Date(Math.floor(cycle.now / MINUTE) * MINUTE);
    for (let i = 0; i < rows.length; i += 1000) {
      const part = rows.slice(i, i + 1000);
      await cycle.db.$executeRaw`
        INSERT INTO "ProductFreshness" ("productId", "lastRecordAt", "ageMs", status, "observedAt")
        SELECT u.p, u.l, u.a, u.s, ${at} FROM unnest(${part.map((r) => r.productId)}::text[], ${part.map((r) => r.lastRecordAt)}::timestamp[], ${part.map((r) => r.ageMs)}::bigint[], ${part.map((r) => r.status)}::text[]) AS u(p, l, a, s)
        ON CONFLICT ("productId") DO UPDATE SET "lastRecordAt" = EXCLUDED."lastRecordAt", "ageMs" = EXCLUDED."ageMs", status = EXCLUDED.status, "observedAt" = EXCLUDED."observedAt"`;
      await cycle.db.$executeRaw`
        INSERT INTO "ProductFreshnessSample" ("productId", bucket, "ageMs", status)
        SELECT u.p, ${bucket}, u.a, u.s FROM unnest(${part.map((r) => r.productId)}::text[], ${part.map((r) => r.ageMs)}::bigint[], ${part.map((r) => r.status)}::text[]) AS u(p, a, s)
        ON CONFLICT ("productId", bucket) DO UPDATE SET "ageMs" = GREATEST("ProductFreshnessSample"."ageMs", EXCLUDED."ageMs"),
          status = CASE WHEN EXCLUDED.status = 'BREACHED' OR "ProductFreshnessSample".status = 'BREACHED' THEN 'BREACHED' ELSE EXCLUDED.status END`;
    }
    await cycle.db.$executeRaw`DELETE FROM "ProductFreshnessSample" WHERE bucket < ${NOW} - interval '48 hours'`;
  }
}
