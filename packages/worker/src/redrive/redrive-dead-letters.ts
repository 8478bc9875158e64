/*
 * REDRIVE_DEAD_LETTERS (issue 29): sends an approved redrive's dead letters
 * from `<topic>.dlq` back to the product topic with the platform's producer
 * (acks=all, idempotent): key and value (JSON text a DLQ action wrote is
 * serialized with the product's schema, see catalog redrive/encode.ts), the
 * headers without the DLQ action's `__rule.*`, plus `kappa.redriven-from:
 * <dlq topic>/<partition>/<offset>` and `kappa.redrive-request: <id>`.
 *
 * Each dead letter is sent at most once, and an acknowledged one is never
 * lost from the record:
 * 1. Claim: in one transaction, a RedrivenRecord row per dead letter of the
 *    batch (primary key product/partition/offset, ON CONFLICT DO NOTHING):
 *    only the rows this request inserted are its to send — one that another
 *    request (or an earlier run) holds is counted as already redriven. The
 *    claim stores the product topic's end offsets taken just before
 *    (`scanFrom`), and checks the request's run token (fencing: a run whose
 *    lease was taken over stops at its next batch).
 * 2. Produce the claimed batch and wait for acks=all.
 * 3. Mark the rows SENT and count them.
 * A crash between 1 and 3 leaves rows CLAIMED by this request. The next run
 * does not guess: it reads the product topic from `scanFrom` to its end and
 * looks for the `kappa.redriven-from` header of each — found rows are marked
 * SENT, the others are sent again. When that scan cannot finish (more than
 * RECOVERY_SCAN_RECORDS to read, or the topic unreadable), the rows stay
 * CLAIMED and the request FAILED, saying so: never a second copy.
 */
import { randomUUID } from "node:crypto";
import {
  isDeadLetterHeader,
  notify,
  parseStoredSelection,
  parseUpTo,
  REDRIVE_REQUEST_HEADER,
  REDRIVEN_FROM_HEADER,
  redrivenFrom,
  redriveValue,
  resolveSelection,
  type Db,
  type RecordSource,
  type SourceRecord,
} from "@kappa/catalog";
import { decodeFetchedRecords } from "@kappa/kafka-protocol";
import { NonRetryableError } from "../errors.ts";
import { partitionKey, type KafkaCluster } from "../kafka/cluster.ts";
import type { OutgoingRecord, PlatformProducer } from "../kafka/producer.ts";
import { errorMessage, type Logger } from "../log.ts";
import { auditAsWorker, type Change } from "../reconcile/entities.ts";

/** Dead letters claimed and sent together. */
export const REDRIVE_BATCH = 200;
/** The most product-topic records a recovery reads looking for claimed records. */
export const RECOVERY_SCAN_RECORDS = 200_000;
const LIVE = new Set(["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"]);

export interface RedriveContext {
  db: Db;
  cluster: KafkaCluster;
  log: Logger;
  producer?: PlatformProducer;
}

/** The worker's reads of a topic by partition (no group), in the shape the catalog's selection code takes. */
export function clusterRecordSource(cluster: KafkaCluster): Pick<RecordSource, "bounds" | "read"> {
  return {
    async bounds(topic) {
      const count = (await cluster.partitionCounts([topic])).get(topic);
      if (!count) throw new Error(`unknown topic ${topic}: it does not exist on the cluster`);
      const spec = [{ topic, partitions: count }];
      const [earliest, latest] = await Promise.all([cluster.listOffsets(spec, "earliest"), cluster.listOffsets(spec, "latest")]);
      return Array.from({ length: count }, (_, p) => {
        const lo = earliest.get(topic)?.[p];
        const hi = latest.get(topic)?.[p];
        if (lo === null || lo === undefined || hi === null || hi === undefined) throw new Error(`ListOffsets gave no offsets for ${topic}-${p}`);
        return { partition: p, earliest: lo, end: hi };
      });
    },
    async read(topic, partition, from, maxBytes) {
      const fetched = (await cluster.fetchRecords([{ topic, partition, offset: from }], { partitionMaxBytes: maxBytes, maxWaitMs: 0, isolationLevel: 1 })).get(partitionKey(topic, partition));
      if (!fetched || fetched.errorCode !== 0) throw new Error(`Fetch ${topic}-${partition} at ${from} failed: error ${fetched?.errorCode ?? "no answer"}`);
      const decoded = decodeFetchedRecords(fetched.records, from, fetched.abortedTransactions);
      return { records: decoded.records.map((r) => ({ ...r, partition })), next: decoded.nextOffset, end: fetched.highWatermark, undecodable: decoded.undecodable };
    },
  };
}

type Claim = { partition: number; offset: bigint };
const keyOf = (c: Claim) => `${c.partition}/${c.offset}`;

async function endOffsets(cluster: KafkaCluster, topic: string): Promise<{ partition: number; end: string }[]> {
  const count = (await cluster.partitionCounts([topic])).get(topic);
  if (!count) throw new NonRetryableError(`the product topic ${topic} does not exist on the cluster`);
  const latest = await cluster.listOffsets([{ topic, partitions: count }], "latest");
  return Array.from({ length: count }, (_, p) => {
    const end = latest.get(topic)?.[p];
    if (end === null || end === undefined) throw new Error(`ListOffsets gave no end offset for ${topic}-${p}`);
    return { partition: p, end: end.toString() };
  });
}

/**
 * Rows this request claimed in an earlier run but never confirmed: looked up
 * in the product topic by their header. Returns those NOT found (to send again).
 */
async function recoverClaims(ctx: RedriveContext, productId: string, requestId: string, dlqTopic: string, topic: string): Promise<Set<string>> {
  const claimed = await ctx.db.redrivenRecord.findMany({ where: { productId, requestId, state: "CLAIMED" }, select: { partition: true, offset: true, scanFrom: true } });
  if (claimed.length === 0) return new Set();
  const wanted = new Map(claimed.map((c) => [redrivenFrom(dlqTopic, c.partition, c.offset), c]));
  // Scan from the lowest end offset any claim recorded, per partition.
  const from = new Map<number, bigint>();
  for (const c of claimed) {
    for (const s of parseUpTo(c.scanFrom)) {
      const at = from.get(s.partition);
      if (at === undefined || s.end < at) from.set(s.partition, s.end);
    }
  }
  const source = clusterRecordSource(ctx.cluster);
  const bounds = await source.bounds(topic);
  let read = 0;
  const found: Claim[] = [];
  for (const b of bounds) {
    let at = from.get(b.partition) ?? b.earliest;
    if (at < b.earliest) at = b.earliest;
    while (at < b.end && found.length < wanted.size) {
      const page = await source.read(topic, b.partition, at, 1024 * 1024);
      for (const r of page.records) {
        if (++read > RECOVERY_SCAN_RECORDS) throw new NonRetryableError(`${claimed.length} dead letters were claimed by an interrupted run and could not be verified (more than ${RECOVERY_SCAN_RECORDS} records of ${topic} to search); they stay claimed and are not sent again`);
        const h = r.headers.find((x) => x.key === REDRIVEN_FROM_HEADER);
        const c = h?.value ? wanted.get(h.value.toString("utf8")) : undefined;
        if (c) found.push({ partition: c.partition, offset: c.offset });
      }
      if (page.undecodable || page.next <= at) break;
      at = page.next;
    }
  }
  if (found.length > 0) {
    await ctx.db.$transaction(async (tx) => {
      for (const f of found) await tx.redrivenRecord.update({ where: { productId_partition_offset: { productId, partition: f.partition, offset: f.offset } }, data: { state: "SENT", sentAt: new Date() } });
      await tx.redriveRequest.update({ where: { id: requestId }, data: { sent: { increment: found.length } } });
    });
    ctx.log.info("redrive recovery found claimed records in the product topic", { request: requestId, found: found.length, claimed: claimed.length });
  }
  const seen = new Set(found.map(keyOf));
  return new Set(claimed.filter((c) => !seen.has(keyOf(c))).map(keyOf));
}

async function finish(db: Db, requestId: string, token: string, status: "DONE" | "FAILED", error: string | null, log: Logger): Promise<void> {
  await db.$transaction(async (tx) => {
    const moved = await tx.redriveRequest.updateMany({ where: { id: requestId, status: "RUNNING", runToken: token }, data: { status, error, finishedAt: new Date() } });
    if (moved.count !== 1) return;
    const r = await tx.redriveRequest.findUniqueOrThrow({ where: { id: requestId } });
    const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: r.productId }, select: { name: true, domainId: true } });
    await auditAsWorker(tx, status === "DONE" ? "product.redrive-done" : "product.redrive-failed", "DataProduct", r.productId, { requestId, matched: r.matched, sent: r.sent, alreadyRedriven: r.alreadyRedriven, skipped: r.skipped, ...(error ? { error } : {}) });
    await notify(tx, {
      kind: "redrive.finished",
      title: status === "DONE" ? `${product.name}: ${r.sent} dead letter${r.sent === 1 ? "" : "s"} redriven` : `${product.name}: the redrive failed`,
      body: status === "DONE" ? `${r.sent} sent back to ${r.topic}; ${r.alreadyRedriven} had been redriven already; ${r.skipped} skipped.` : (error ?? ""),
      link: `/products/${r.productId}#live`,
      entityType: "DataProduct",
      entityId: r.productId,
      audience: { users: [r.requestedById] },
      webhookDomains: [product.domainId],
      data: { requestId, sent: r.sent, alreadyRedriven: r.alreadyRedriven, skipped: r.skipped },
    });
  });
  log.info(status === "DONE" ? "redrive done" : "redrive failed", { request: requestId, error });
}

export async function redriveDeadLetters(ctx: RedriveContext, requestId: string): Promise<Change[]> {
  const { db, log } = ctx;
  const request = await db.redriveRequest.findUnique({ where: { id: requestId } });
  if (!request || (request.status !== "APPROVED" && request.status !== "RUNNING")) return [];
  const token = randomUUID();
  // Take the request over (a run whose lease expired finds another token at its next claim and stops).
  const taken = await db.redriveRequest.updateMany({ where: { id: requestId, status: { in: ["APPROVED", "RUNNING"] } }, data: { status: "RUNNING", runToken: token, startedAt: request.startedAt ?? new Date(), error: null } });
  if (taken.count !== 1) return [];
  try {
    if (!ctx.producer) throw new NonRetryableError("this worker has no producer configured; redrive needs one");
    const product = await db.dataProduct.findUnique({ where: { id: request.productId }, select: { status: true, topicName: true } });
    if (!product || !LIVE.has(product.status)) throw new NonRetryableError(`the product is ${product?.status ?? "gone"}: nothing is redriven into it`);
    const schema = await db.schemaVersion.findFirst({ where: { productId: request.productId, status: "APPROVED", schemaId: { not: null } }, orderBy: { version: "desc" }, select: { format: true, definition: true, schemaId: true } });
    const resend = await recoverClaims(ctx, request.productId, requestId, request.dlqTopic, request.topic);
    const { records } = await resolveSelection(clusterRecordSource(ctx.cluster), request.dlqTopic, parseStoredSelection(request.selection), parseUpTo(request.upTo));
    await db.redriveRequest.update({ where: { id: requestId }, data: { matched: records.length } });
    const skippedReasons: string[] = Array.isArray(request.skippedReasons) ? request.skippedReasons.filter((x): x is string => typeof x === "string") : [];
    for (let i = 0; i < records.length; i += REDRIVE_BATCH) {
      const batch = records.slice(i, i + REDRIVE_BATCH);
      const scanFrom = await endOffsets(ctx.cluster, request.topic);
      const claimed = await claim(db, request.productId, requestId, token, batch, resend, scanFrom);
      if (claimed === null) {
        log.warn("redrive taken over by another run; this one stops", { request: requestId });
        return [];
      }
      const outgoing: OutgoingRecord[] = [];
      const sending: SourceRecord[] = [];
      const skipped: SourceRecord[] = [];
      for (const r of batch) {
        if (!claimed.send.has(keyOf(r))) continue;
        const value = redriveValue(r.value, schema?.schemaId ? { format: schema.format, definition: schema.definition, schemaId: schema.schemaId } : null);
        if (!value.ok) {
          skipped.push(r);
          if (skippedReasons.length < 20) skippedReasons.push(`${request.dlqTopic} ${r.partition}/${r.offset}: ${value.reason}`);
          continue;
        }
        const headers: Record<string, Buffer | string> = {};
        for (const h of r.headers) if (!isDeadLetterHeader(h.key) && h.value !== null && h.key !== REDRIVEN_FROM_HEADER && h.key !== REDRIVE_REQUEST_HEADER) headers[h.key] = h.value;
        headers[REDRIVEN_FROM_HEADER] = redrivenFrom(request.dlqTopic, r.partition, r.offset);
        headers[REDRIVE_REQUEST_HEADER] = requestId;
        outgoing.push({ topic: request.topic, key: r.key, value: value.value, headers });
        sending.push(r);
      }
      // A skipped record was not sent: its claim goes, so a later redrive (after a schema fix) may send it.
      if (skipped.length > 0) {
        await db.$transaction([
          db.$executeRaw`DELETE FROM "RedrivenRecord" r USING unnest(${skipped.map((s) => s.partition)}::int[], ${skipped.map((s) => s.offset)}::bigint[]) AS s(p, o) WHERE r."productId" = ${request.productId} AND r."requestId" = ${requestId} AND r."partition" = s.p AND r."offset" = s.o`,
          db.redriveRequest.update({ where: { id: requestId }, data: { skipped: { increment: skipped.length }, skippedReasons } }),
        ]);
      }
      if (outgoing.length > 0) {
        await ctx.producer.send(outgoing);
        await db.$transaction([
          db.$executeRaw`UPDATE "RedrivenRecord" r SET state = 'SENT', "sentAt" = now() FROM unnest(${sending.map((s) => s.partition)}::int[], ${sending.map((s) => s.offset)}::bigint[]) AS s(p, o) WHERE r."productId" = ${request.productId} AND r."requestId" = ${requestId} AND r."partition" = s.p AND r."offset" = s.o`,
          db.redriveRequest.update({ where: { id: requestId }, data: { sent: { increment: sending.length } } }),
        ]);
      }
      // Held by another request (or an earlier one): never sent twice. This request's own rows from an earlier run are counted already.
      const already = batch.length - claimed.send.size - claimed.ownEarlier;
      if (already > 0) await db.redriveRequest.update({ where: { id: requestId }, data: { alreadyRedriven: { increment: already } } });
    }
    await finish(db, requestId, token, "DONE", null, log);
  } catch (error) {
    if (error instanceof NonRetryableError) {
      await finish(db, requestId, token, "FAILED", error.message, log);
      return [];
    }
    // Retried by the task runner; the owner sees why meanwhile.
    await db.redriveRequest.updateMany({ where: { id: requestId, runToken: token }, data: { error: errorMessage(error).slice(0, 2_000) } });
    throw error;
  }
  return [];
}

/**
 * Claims the batch's dead letters for this request under its run token: the
 * rows it inserts plus its own rows still CLAIMED from an interrupted run that
 * the recovery did not find in the product topic. Null when another run holds
 * the request now.
 */
async function claim(db: Db, productId: string, requestId: string, token: string, batch: readonly SourceRecord[], resend: Set<string>, scanFrom: { partition: number; end: string }[]): Promise<{ send: Set<string>; ownEarlier: number } | null> {
  return db.$transaction(async (tx) => {
    const owner = await tx.$queryRaw<{ runToken: string | null }[]>`SELECT "runToken" FROM "RedriveRequest" WHERE id = ${requestId} FOR UPDATE`;
    if (owner[0]?.runToken !== token) return null;
    const scan = JSON.stringify(scanFrom);
    const inserted = await tx.$queryRaw<Claim[]>`
      INSERT INTO "RedrivenRecord" ("productId", "partition", "offset", "requestId", "scanFrom")
      SELECT ${productId}, s.p, s.o, ${requestId}, ${scan}::jsonb FROM unnest(${batch.map((r) => r.partition)}::int[], ${batch.map((r) => r.offset)}::bigint[]) AS s(p, o)
      ON CONFLICT ("productId", "partition", "offset") DO NOTHING
      RETURNING "partition", "offset"`;
    const mine = new Set(inserted.map(keyOf));
    const again = batch.filter((r) => resend.has(keyOf(r)));
    if (again.length > 0) {
      await tx.$executeRaw`UPDATE "RedrivenRecord" r SET "scanFrom" = ${scan}::jsonb FROM unnest(${again.map((s) => s.partition)}::int[], ${again.map((s) => s.offset)}::bigint[]) AS s(p, o) WHERE r."productId" = ${productId} AND r."requestId" = ${requestId} AND r.state = 'CLAIMED' AND r."partition" = s.p AND r."offset" = s.o`;
      for (const r of again) mine.add(keyOf(r));
    }
    const own = await tx.$queryRaw<{ n: number }[]>`
      SELECT count(*)::int AS n FROM "RedrivenRecord" r JOIN unnest(${batch.map((r) => r.partition)}::int[], ${batch.map((r) => r.offset)}::bigint[]) AS s(p, o) ON r."partition" = s.p AND r."offset" = s.o
       WHERE r."productId" = ${productId} AND r."requestId" = ${requestId}`;
    return { send: mine, ownEarlier: (own[0]?.n ?? 0) - mine.size };
  });
}
