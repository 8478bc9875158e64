import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { recordUsageDay, type Db } from "@kappa/catalog";
import { writeCycle, type TopicRow } from "../src/observe/write.ts";
import { approvedProduct, approvedSubscription, openTestDatabase, seedPeople } from "./helpers.ts";

/*
 * The observer's writes feed the usage ledger: what writeCycle stores each
 * minute (end offsets, log sizes, a subscription's groups' committed offsets)
 * is what the ledger turns into bytes in and out. No broker: the rows are the
 * cycle's as the observer builds them.
 */

let database: Awaited<ReturnType<typeof openTestDatabase>>;
let db: Db;
beforeAll(async () => {
  database = await openTestDatabase();
  db = database.db;
});
afterAll(async () => database.dispose());

describe("the observer's history feeds the usage ledger", () => {
  it("end offsets and committed offsets written a minute apart become the day's bytes in and bytes out", async () => {
    const people = await seedPeople(db);
    const product = await approvedProduct(db, people);
    const { account, subscription } = await approvedSubscription(db, people, product.id, "ledger-reader");
    const topic = product.topicName;
    const topicRow = (end: bigint): TopicRow => ({
      topic,
      productId: product.id,
      partitions: 2,
      endOffset: end,
      earliestOffset: 0n,
      earliestLocalOffset: 0n,
      latestTieredOffset: null,
      localBytes: end * 50n,
      remoteBytes: null,
      messagesPerSecond: null,
      detail: [],
    });
    const groupRow = (committed: [string | null, string | null]) => ({
      groupId: `${account.name}.app`,
      topic,
      subscriptionId: subscription.id,
      serviceAccountId: account.id,
      state: "Stable",
      members: 1,
      totalLag: 0n,
      timeLagMs: null,
      detail: committed.map((c, partition) => ({ partition, committedOffset: c, endOffset: null, lag: null })),
    });
    const t0 = Date.parse("2026-11-10T08:00:30Z");
    await writeCycle(db, { topics: [topicRow(1000n)], groups: [groupRow(["100", null])], removedTopics: [], removedGroups: [] }, t0);
    await writeCycle(db, { topics: [topicRow(1600n)], groups: [groupRow(["300", "200"])], removedTopics: [], removedGroups: [] }, t0 + 60_000);

    expect(await recordUsageDay(db, "2026-11-10")).toMatchObject({ products: 1, subscriptions: 1, written: 2 });
    const rows = await db.usageRecord.findMany({ where: { productId: product.id }, orderBy: { subscriptionId: "asc" } });
    // 600 records in, 400 read (100 → 500 committed), 50 bytes a record (local bytes over local records).
    expect(rows.map((r) => [r.subscriptionId, r.recordsIn, r.bytesIn, r.recordsOut, r.bytesOut, r.observedMinutes])).toEqual([
      ["", 600n, 30_000n, 0n, 0n, 2],
      [subscription.id, 0n, 0n, 400n, 20_000n, 0],
    ]);
  });
});
