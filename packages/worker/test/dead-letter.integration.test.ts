import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, evaluateAlerts, loadActor, readDeadLetters, requestRedrive, setQualityRules, type Db, type RecordSource } from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { openProducer, type PlatformProducer } from "../src/kafka/producer.ts";
import { MESSAGE_BROWSER_PRINCIPAL_NAME, reconcileMessageBrowser } from "../src/reconcile/platform-reader.ts";
import { clusterRecordSource } from "../src/redrive/redrive-dead-letters.ts";
import { approvedProduct, approvedSubscription, kafkaClient, SECRETS_KEY, startSaslStack, stopSaslStack, testLogger, waitFor } from "./helpers.ts";

/*
 * Issue 29: a product with a DLQ rule gets `<topic>.dlq` from the worker —
 * created when the rule is approved, WRITE for the domain's producer account
 * and READ for the owning domain through it; subscribers get nothing on it.
 */

const ADMIN = { name: "kappa-admin", password: "dead-letter-admin-secret" };
let stack: Awaited<ReturnType<typeof startSaslStack>>;
let db: Db;
/** The product of the first test, with its DLQ rule approved and `<topic>.dlq` on the cluster. */
let withDlq: { id: string; topicName: string } | null = null;

beforeAll(async () => {
  stack = await startSaslStack(ADMIN);
  db = stack.db;
});
let platformProducer: PlatformProducer | null = null;
afterAll(async () => {
  await platformProducer?.close();
  await stopSaslStack(stack ?? {});
});

const grantsOn = async (principal: string, topic: string) =>
  (await stack.running.cluster.describeAcls([principal]))
    .filter((b) => b.resourceType === "TOPIC" && b.resourceName === topic)
    .map((b) => `${b.permission} ${b.operation}`)
    .sort();

describe("the dead-letter topic", () => {
  it("is provisioned with the product's DLQ rule: producer WRITE, owners READ, subscribers nothing", async () => {
    const { people } = stack;
    const product = await approvedProduct(db, people);
    await waitFor(async () => (await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status === "ACTIVE", 30_000, "product ACTIVE");
    const { account: reader } = await approvedSubscription(db, people, product.id, "dlq-reader");
    const dlq = `${product.topicName}.dlq`;
    // No DLQ rule yet: no dead-letter topic.
    expect((await stack.running.cluster.describeTopics([dlq])).has(dlq)).toBe(false);

    const request = await setQualityRules(db, people.as.ordersOwner, product.id, {
      rules: [{ name: "has-id", description: "Every event names itself.", kind: "CEL", expression: "message.id != ''", mode: "WRITE", onFailure: "DLQ" }],
      reason: "Events without an id cannot be joined.",
    });
    await approveChangeRequest(db, people.as.reviewer, request.changeRequestId ?? "");

    const topic = await waitFor(async () => (await stack.running.cluster.describeTopics([dlq], ["retention.ms", "cleanup.policy"])).get(dlq), 30_000, "the DLQ topic");
    expect(topic.partitions).toBe(1);
    expect(topic.configs).toMatchObject({ "retention.ms": "604800000", "cleanup.policy": "delete" });

    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: people.orders.id, isProducer: true } });
    await waitFor(async () => (await grantsOn(`User:${producer.name}`, dlq)).length === 3, 30_000, "the producer's grants on the DLQ");
    expect(await grantsOn(`User:${producer.name}`, dlq)).toEqual(["ALLOW DESCRIBE", "ALLOW READ", "ALLOW WRITE"]);
    // The subscriber reads the product topic, never its dead letters.
    await waitFor(async () => (await grantsOn(`User:${reader.name}`, product.topicName)).length > 0, 30_000, "the subscriber's grant");
    expect(await grantsOn(`User:${reader.name}`, dlq)).toEqual([]);
    withDlq = product;
  });

  /** The records of a topic read by partition with the worker's admin connection, as the portal's reader reads them (same decoder). */
  const adminSource = (): RecordSource => ({
    bounds: async (topic) => {
      const parts = [{ topic, partitions: 1 }];
      const [end, start] = await Promise.all([stack.running.cluster.listOffsets(parts, "latest"), stack.running.cluster.listOffsets(parts, "earliest")]);
      return [{ partition: 0, earliest: start.get(topic)?.[0] ?? 0n, end: end.get(topic)?.[0] ?? 0n }];
    },
    offsetsForTimestamp: () => Promise.reject(new Error("not used by the DLQ panel")),
    read: async (topic, partition, from) => {
      const fetched = (await stack.running.cluster.fetchRecords([{ topic, partition, offset: from }])).values().next().value;
      const decoded = decodeFetchedRecords(fetched?.records ?? null, from);
      return { records: decoded.records.map((r) => ({ partition, offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType, key: r.key, value: r.value, headers: r.headers })), next: decoded.nextOffset, end: fetched?.highWatermark ?? from, undecodable: decoded.undecodable };
    },
  });

  it("is observed (count and growth), read by the product's owners only with the failing rule per record, and alerts its owners when it grows", async () => {
    const product = withDlq;
    if (!product) throw new Error("the first test provisions the DLQ");
    const { people } = stack;
    const dlq = `${product.topicName}.dlq`;
    // The portal's reader (the message browser's principal) may read the DLQ: the panel reads through it.
    await reconcileMessageBrowser(db, stack.running.cluster, SECRETS_KEY, testLogger);
    expect(await grantsOn(`User:${MESSAGE_BROWSER_PRINCIPAL_NAME}`, dlq)).toEqual(["ALLOW DESCRIBE", "ALLOW READ"]);

    // The cluster scan counts it as the product's: never an unmanaged topic someone could claim.
    await stack.running.worker.scanner.scanOnce();
    expect(await db.clusterTopic.findUnique({ where: { name: dlq }, select: { productId: true } })).toEqual({ productId: product.id });

    // A cycle before any dead letter: the DLQ holds nothing, and nothing grows.
    const t0 = Date.now();
    await stack.running.worker.observer.observeOnce(t0);
    expect(await db.deadLetterSample.findMany({ where: { productId: product.id }, select: { startOffset: true, endOffset: true } })).toEqual([{ startOffset: 0n, endOffset: 0n }]);

    // Two records as Confluent's DLQ action writes them: the record as JSON text, the rule in headers.
    const producer = kafkaClient(stack.broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).producer();
    await producer.connect();
    await producer.send({
      topic: dlq,
      messages: [
        { key: "o-1", value: JSON.stringify({ id: "", amount: 3 }), headers: { "__rule.name": "has-id", "__rule.mode": "WRITE", "__rule.exception": "Expr failed: message.id != ''" } },
        { key: "o-2", value: JSON.stringify({ id: "", amount: 4 }), headers: { "__rule.name": "has-id", "__rule.mode": "WRITE" } },
      ],
    });
    await producer.disconnect();
    await stack.running.worker.observer.observeOnce(t0 + 60_000);
    const latest = await db.deadLetterSample.findFirstOrThrow({ where: { productId: product.id }, orderBy: { bucket: "desc" } });
    expect(latest.endOffset - latest.startOffset).toBe(2n);

    // The owner's panel: the count, the growth, the newest first with the rule each failed.
    const owner = await loadActor(db, people.as.ordersOwner.userId);
    const page = await readDeadLetters(db, owner, product.id, adminSource(), { ratePerMinute: 100 }, t0 + 61_000);
    expect({ topic: page.topic, count: page.count, addedLastHour: page.addedLastHour }).toEqual({ topic: dlq, count: 2, addedLastHour: 2 });
    expect(page.records.map((r) => ({ offset: r.offset, rule: r.rule, key: r.key, value: r.value.value }))).toEqual([
      { offset: 1n, rule: "has-id", key: { text: "o-2", hex: null }, value: { id: "", amount: 4 } },
      { offset: 0n, rule: "has-id", key: { text: "o-1", hex: null }, value: { id: "", amount: 3 } },
    ]);
    expect(page.records[1]?.error).toContain("Expr failed");
    expect(await db.auditEvent.count({ where: { action: "product.dead-letters-read", entityId: product.id } })).toBe(1);

    // A subscriber (who reads the product topic), governance and outsiders never see a dead letter.
    for (const who of [people.as.paymentsOwner, people.as.reviewer, people.as.outsider]) {
      await expect(readDeadLetters(db, await loadActor(db, who.userId), product.id, adminSource(), { ratePerMinute: 100 })).rejects.toThrow(/owners|Only the product's domain/);
    }

    // The alert: the DLQ grew, so the owning domain is told (and only it).
    const evaluated = await evaluateAlerts(db, { fireAfterMs: 0, resolveAfterMs: 0, clearRatio: 1 }, new Date(t0 + 61_000));
    const alert = await db.alert.findFirstOrThrow({ where: { productId: product.id, kind: "DLQ_GROWTH" } });
    expect(evaluated.fired).toContain(alert.id);
    expect(alert).toMatchObject({ status: "FIRING", value: 2 });
    expect(alert.message).toContain(`${dlq} received 2 records in 15 min`);
    const event = await db.notificationEvent.findFirstOrThrow({ where: { kind: "alert.fired", entityId: product.id } });
    expect(event.title).toMatch(/^Dead letters on /);
    expect(event.domainIds).toEqual([people.orders.id]);
    const told = await db.notification.findMany({ where: { eventId: event.id }, select: { userId: true } });
    expect(told.map((n) => n.userId)).toEqual([people.as.ordersOwner.userId]);
  });

  it("redrives dead letters back to the product topic exactly once: previewed, claimed, sent, never twice (races, a second request, an interrupted run)", async () => {
    const product = withDlq;
    if (!product) throw new Error("the first test provisions the DLQ");
    const { people } = stack;
    const dlq = `${product.topicName}.dlq`;
    platformProducer = openProducer({ clientId: "kappa-worker-redrive-test", brokers: [stack.broker.bootstrap], sasl: { mechanism: "SCRAM-SHA-512", username: ADMIN.name, password: ADMIN.password } });
    // The worker's producer (main.ts opens it as the admin principal).
    stack.running.worker.ctx.producer = platformProducer;
    const reader = clusterRecordSource(stack.running.cluster);
    const redriven = async () => {
      const out: { from: string; request: string; key: string | null; value: Buffer | null; rule: boolean }[] = [];
      for (const b of await reader.bounds(product.topicName)) {
        for (let at = b.earliest; at < b.end; ) {
          const page = await reader.read(product.topicName, b.partition, at, 1024 * 1024);
          for (const r of page.records) {
            const h = (k: string) => r.headers.find((x) => x.key === k)?.value?.toString() ?? null;
            if (h("kappa.redriven-from")) out.push({ from: h("kappa.redriven-from") ?? "", request: h("kappa.redrive-request") ?? "", key: r.key?.toString() ?? null, value: r.value, rule: r.headers.some((x) => x.key.startsWith("__rule.")) });
          }
          if (page.next <= at) break;
          at = page.next;
        }
      }
      return out.sort((a, c) => a.from.localeCompare(c.from));
    };
    const framed = Buffer.concat([Buffer.from([0, 0, 0, 0, 7]), Buffer.from([4]), Buffer.from("ok")]);
    const producer = kafkaClient(stack.broker.bootstrap, { sasl: { mechanism: "scram-sha-512", username: ADMIN.name, password: ADMIN.password } }).producer();
    await producer.connect();
    // After the panel's two (offsets 0, 1): a JSON text that fits the fixed schema, a value already in the wire format, and bytes that are neither.
    await producer.send({
      topic: dlq,
      messages: [
        { key: "k-2", value: JSON.stringify({ id: "fixed-2" }), headers: { "__rule.name": "id-fixed", "__rule.mode": "WRITE", trace: "t-2" } },
        { key: "k-3", value: framed, headers: { "__rule.name": "id-fixed" } },
        { key: "k-4", value: Buffer.from([0xff, 0x01]), headers: { "__rule.name": "id-fixed" } },
      ],
    });
    // Two owners' requests race for the same records: every dead letter goes out once.
    const [byRule, explicit] = await Promise.all([
      requestRedrive(db, people.as.ordersOwner, product.id, { selection: { kind: "filter", rule: "id-fixed" }, reason: "The producer sets ids again." }, adminSource(), { ratePerMinute: 100 }),
      requestRedrive(db, people.as.ordersOwner, product.id, { selection: { kind: "records", records: [{ partition: 0, offset: 2 }, { partition: 0, offset: 3 }] } }, adminSource(), { ratePerMinute: 100 }),
    ]);
    // INTERNAL: no second person needed.
    expect([byRule.request.status, explicit.request.status, byRule.fourEyes]).toEqual(["APPROVED", "APPROVED", false]);
    const done = async (id: string) => waitFor(async () => {
      const r = await db.redriveRequest.findUniqueOrThrow({ where: { id } });
      return r.status === "DONE" || r.status === "FAILED" ? r : null;
    }, 60_000, `redrive ${id} finished`);
    const [a, b] = await Promise.all([done(byRule.request.id), done(explicit.request.id)]);
    expect([a.status, b.status]).toEqual(["DONE", "DONE"]);
    expect(a.sent + b.sent).toBe(2);
    expect(a.skipped).toBe(1);
    expect(a.skippedReasons).toEqual([`${dlq} 0/4: the value is neither in the registry's wire format nor JSON text`]);
    const sent = await redriven();
    expect(sent.map((r) => ({ from: r.from, key: r.key, rule: r.rule }))).toEqual([
      { from: `${dlq}/0/2`, key: "k-2", rule: false },
      { from: `${dlq}/0/3`, key: "k-3", rule: false },
    ]);
    // The JSON text, serialized with the product's schema and its registry id; the wire-format value unchanged.
    const version = await db.schemaVersion.findFirstOrThrow({ where: { productId: product.id, status: "APPROVED" }, select: { schemaId: true } });
    expect(sent[0]?.value?.subarray(0, 5)).toEqual(Buffer.from([0, 0, 0, 0, version.schemaId ?? -1]));
    expect(sent[0]?.value?.subarray(5).toString("latin1")).toBe("\x0efixed-2");
    expect(sent[1]?.value).toEqual(framed);

    // A third request for those records is refused; one that got past its preview in a race sends nothing.
    await expect(requestRedrive(db, people.as.ordersOwner, product.id, { selection: { kind: "records", records: [{ partition: 0, offset: 2 }] } }, adminSource(), { ratePerMinute: 100 })).rejects.toMatchObject({ code: "NOTHING_TO_REDRIVE" });
    const late = await db.redriveRequest.create({ data: { productId: product.id, dlqTopic: dlq, topic: product.topicName, selection: { kind: "records", records: [{ partition: 0, offset: "2" }] }, upTo: [{ partition: 0, end: "5" }], previewed: 1, status: "APPROVED", requestedById: people.as.ordersOwner.userId } });
    await db.provisioningTask.create({ data: { kind: "REDRIVE_DEAD_LETTERS", payload: { requestId: late.id }, entityType: "RedriveRequest", entityId: late.id, step: 1 } });
    expect(await done(late.id)).toMatchObject({ status: "DONE", matched: 1, sent: 0, alreadyRedriven: 1 });
    expect((await redriven()).length).toBe(2);

    // An interrupted run: two dead letters claimed, one of them in the product topic already (the crash came after the produce).
    await producer.send({ topic: dlq, messages: [{ key: "k-5", value: JSON.stringify({ id: "fixed-5" }) }, { key: "k-6", value: JSON.stringify({ id: "fixed-6" }) }] });
    await producer.disconnect();
    const ends = await reader.bounds(product.topicName);
    const interrupted = await db.redriveRequest.create({ data: { productId: product.id, dlqTopic: dlq, topic: product.topicName, selection: { kind: "filter", fromOffset: "5" }, upTo: [{ partition: 0, end: "7" }], previewed: 2, status: "RUNNING", runToken: "crashed-run", requestedById: people.as.ordersOwner.userId } });
    const scanFrom = ends.map((e) => ({ partition: e.partition, end: e.end.toString() }));
    await db.redrivenRecord.createMany({ data: [5n, 6n].map((offset) => ({ productId: product.id, partition: 0, offset, requestId: interrupted.id, scanFrom })) });
    await platformProducer.send([{ topic: product.topicName, key: "k-5", value: "sent before the crash", headers: { "kappa.redriven-from": `${dlq}/0/5`, "kappa.redrive-request": interrupted.id } }]);
    await db.provisioningTask.create({ data: { kind: "REDRIVE_DEAD_LETTERS", payload: { requestId: interrupted.id }, entityType: "RedriveRequest", entityId: interrupted.id, step: 1 } });
    expect(await done(interrupted.id)).toMatchObject({ status: "DONE", matched: 2, sent: 2, alreadyRedriven: 0 });
    const after = await redriven();
    expect(after.map((r) => r.from)).toEqual([`${dlq}/0/2`, `${dlq}/0/3`, `${dlq}/0/5`, `${dlq}/0/6`]);
    expect(await db.redrivenRecord.count({ where: { productId: product.id, state: "SENT" } })).toBe(4);
    expect(await db.auditEvent.count({ where: { entityId: product.id, action: "product.redrive-done" } })).toBe(4);
  });
});
