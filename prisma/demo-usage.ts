/*
 * The demo's usage history (issue 33): 60 days of ledger rows before the day
 * of the seed, so the Costs page and each product's cost have figures on the
 * first start. Rows as the worker's ledger writes them (packages/catalog/src/
 * costs/ledger.ts); from the day of the seed on, the worker records the real
 * demo traffic. The figures follow a steady pattern with a weekly rhythm and a
 * little deterministic noise — no randomness, so every fresh start is alike.
 */
import type { Prisma } from "@prisma/client";
import type { Db } from "@kappa/catalog";

const DAY = 86_400_000;
export const DEMO_USAGE_DAYS = 60;

interface DemoProduct {
  id: string;
  domainId: string;
  partitions: number;
  /** Bytes written on an ordinary weekday. */
  bytesPerDay: number;
  /** Bytes held locally (hot) at the start, and the share of each day's bytes that stays local. */
  localStart: number;
  localShare: number;
  /** Whether older segments move to the object store (tiered storage). */
  tiered: boolean;
  /** Subscriptions reading it: bytes read per byte written. */
  readers: { subscriptionId: string; domainId: string; ratio: number }[];
}

/** 0.85…1.15, the same for the same day and product. */
function noise(day: number, salt: number): number {
  const x = Math.sin(day * 12.9898 + salt * 78.233) * 43758.5453;
  return 0.85 + (x - Math.floor(x)) * 0.3;
}

export async function seedDemoUsage(db: Db, products: DemoProduct[], now = Date.now()): Promise<number> {
  const today = Math.floor(now / DAY) * DAY;
  const rows: Prisma.UsageRecordCreateManyInput[] = [];
  products.forEach((p, salt) => {
    let local = p.localStart;
    let remote = 0;
    for (let i = DEMO_USAGE_DAYS; i >= 1; i--) {
      const start = today - i * DAY;
      const weekday = new Date(start).getUTCDay();
      const bytesIn = Math.round(p.bytesPerDay * (weekday === 0 || weekday === 6 ? 0.55 : 1) * noise(i, salt));
      // Hot bytes: what stays local; the rest of the day's bytes tiers off (or is compacted away).
      local += Math.round(bytesIn * p.localShare);
      if (p.tiered) remote += bytesIn;
      const day = new Date(start);
      rows.push({
        day,
        productId: p.id,
        subscriptionId: "",
        domainId: p.domainId,
        recordsIn: BigInt(Math.round(bytesIn / 350)),
        bytesIn: BigInt(bytesIn),
        localByteHours: BigInt(local * 24),
        remoteByteHours: BigInt(remote * 24),
        partitionMinutes: BigInt(p.partitions * 1440),
        observedMinutes: 1440,
      });
      for (const r of p.readers) {
        const bytesOut = Math.round(bytesIn * r.ratio * noise(i, salt + 7));
        rows.push({ day, productId: p.id, subscriptionId: r.subscriptionId, domainId: p.domainId, consumingDomainId: r.domainId, recordsOut: BigInt(Math.round(bytesOut / 350)), bytesOut: BigInt(bytesOut) });
      }
    }
  });
  await db.usageRecord.createMany({ data: rows, skipDuplicates: true });
  return rows.length;
}
