import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, loadActor, readProductQuality, setQualityRules, type Db } from "@kappa/catalog";
import { QualitySampler } from "../src/quality/quality-sampler.ts";
import { approvedProduct, kafkaClient, startSaslStack, stopSaslStack, waitFor } from "./helpers.ts";

/*
 * Issue 29, observed quality: the worker samples an ACTIVE product's new
 * records, evaluates its approved rules with the catalog's evaluator and
 * stores per-rule counts; the catalog's score reads them. Records from before
 * the first look are not counted, every record at most once, and a backlog
 * larger than the sample is sampled at its newest end.
 */

const ADMIN = { name: "kappa-admin", password: "observed-quality-admin-secret" };
let stack: Awaited<ReturnType<typeof startSaslStack>>;
let db: Db;

beforeAll(async () => {
  stack = await startSaslStack(ADMIN);
  db = stack.db;
});
afterAll(async () => {
  await stopSaslStack(stack ?? {});
});

const schema = JSON.stringify({
  type: "object",
  properties: { id: { type: "string" }, totalCents: { type: "integer" }, email: { type: "string", "x-pii": true } },
  required: ["id", "totalCents"],
});

const counts = async (productId: string) =>
  Object.fromEntries(
    (await db.qualityObservation.groupBy({ by: ["rule"], where: { productId }, _sum: { passed: true, failed: true, errored: true } })).map((r) => [r.rule, [r._sum.passed, r._sum.failed, r._sum.errored]]),
  );

describe("observed quality", () => {
  it("counts each new record once per rule, never the records from before the first look, and bounds each run", async () => {
    const { people } = stack;
    const product = await approvedProduct(db, people, { schema: { format: "JSON_SCHEMA", definition: schema }, partitions: 1, classification: "CONFIDENTIAL" });
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 30_000, "product ACTIVE");
    const request = await setQualityRules(db, people.as.ordersOwner, product.id, {
      rules: [
        { name: "non-negative-total", description: "", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "NONE" },
        { name: "has-id", description: "", kind: "CEL", expression: "message.id != ''", mode: "WRITE", onFailure: "NONE" },
        { name: "email-has-at", description: "", kind: "CEL_FIELD", expression: "value.contains('@')", mode: "WRITE", onFailure: "NONE", tags: ["PII"] },
      ],
      reason: "Totals are never negative; e-mails are e-mails.",
    });
    await approveChangeRequest(db, people.as.reviewer, request.changeRequestId ?? "");

    const producer = kafkaClient(stack.broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).producer();
    await producer.connect();
    const send = (values: (object | string)[]) =>
      producer.send({ topic: product.topicName, messages: values.map((v, i) => ({ key: `k-${i}`, value: typeof v === "string" ? v : JSON.stringify(v) })) });
    const t0 = Date.now();
    try {
      // Written before the sampler first looks: not "new", never counted.
      await send([{ id: "old-1", totalCents: -1 }, { id: "old-2", totalCents: 5 }]);
      const sampler = new QualitySampler({ perPartition: 10 });
      const cycle = (now: number) => ({ now, db, cluster: stack.running.cluster });
      await sampler.sample(cycle(t0));
      expect(await db.qualitySampleCursor.findMany({ where: { productId: product.id }, select: { partition: true, nextOffset: true } })).toEqual([{ partition: 0, nextOffset: 2n }]);
      expect(await counts(product.id)).toEqual({});

      // Three good records, a negative total, an e-mail without '@', a value that is not JSON.
      await send([
        { id: "a", totalCents: 10, email: "a@example.com" },
        { id: "b", totalCents: 0 },
        { id: "c", totalCents: 7, email: "c@example.com" },
        { id: "d", totalCents: -3, email: "d@example.com" },
        { id: "e", totalCents: 4, email: "not-an-email" },
        "this is not json",
      ]);
      // Two workers at once: both read from the same cursor, only one run's counts stand.
      const runs = await Promise.all([sampler.sample(cycle(t0 + 1_000)), new QualitySampler({ perPartition: 10 }).sample(cycle(t0 + 1_000))]);
      expect(runs.map((r) => r.sampled).sort()).toEqual([0, 6]);
      const afterFirst = {
        "*": [3, 2, 1],
        "non-negative-total": [4, 1, 0],
        "has-id": [5, 0, 0],
        "email-has-at": [4, 1, 0],
      };
      expect(await counts(product.id)).toEqual(afterFirst);

      // Nothing new: nothing counted again (another worker's run included).
      expect(await sampler.sample(cycle(t0 + 2_000))).toEqual({ sampled: 0 });
      expect(await new QualitySampler().sample(cycle(t0 + 2_000))).toEqual({ sampled: 0 });
      expect(await counts(product.id)).toEqual(afterFirst);

      // A backlog larger than the sample: only the newest records count, the rest are skipped for good.
      await send([{ id: "f", totalCents: -1 }, { id: "g", totalCents: -1 }, { id: "h", totalCents: -1 }, { id: "i", totalCents: 1 }, { id: "j", totalCents: 1 }]);
      expect(await new QualitySampler({ perPartition: 2 }).sample(cycle(t0 + 3_000))).toEqual({ sampled: 2 });
      expect(await db.qualitySampleCursor.findFirstOrThrow({ where: { productId: product.id } })).toMatchObject({ nextOffset: 13n });
      expect(await counts(product.id)).toEqual({ ...afterFirst, "*": [5, 2, 1], "non-negative-total": [6, 1, 0], "has-id": [7, 0, 0], "email-has-at": [6, 1, 0] });
      expect(await sampler.sample(cycle(t0 + 4_000))).toEqual({ sampled: 0 });
    } finally {
      await producer.disconnect();
    }

    // The score, as a consumer of another domain sees it before subscribing.
    const consumer = await loadActor(db, people.as.paymentsOwner.userId);
    const score = await readProductQuality(db, consumer, product.id, { window: "1h" }, t0 + 5_000);
    expect(score.measured).toBe(true);
    expect(score.overall).toEqual({ records: 8, passed: 5, failed: 2, errored: 1, share: 5 / 8 });
    expect(score.rules.map((r) => [r.name, r.records, r.share])).toEqual([
      ["non-negative-total", 7, 6 / 7],
      ["has-id", 7, 1],
      ["email-has-at", 7, 6 / 7],
    ]);
    expect(score.series.reduce((n, p) => n + p.records, 0)).toBe(8);
  });
});
