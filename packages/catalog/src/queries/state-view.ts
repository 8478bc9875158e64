import { Prisma } from "@prisma/client";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import { auditInsertSql, recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ConflictError, NotFoundError, ValidationError } from "../errors.ts";
import { decodeValue, type DecodedValue } from "../records/decode-value.ts";
import { browseStateInput, stateKeyInput } from "../records/inputs.ts";
import { recordViewer, type RecordViewer } from "../records/viewer.ts";
import { MASKED_KEY, renderKey } from "../records/wire.ts";

/*
 * Reads of a compacted product's latest-state view (kept by the worker in
 * StateEntry): the view's own progress and lag, one key's latest value, and
 * pages of keys by prefix. Values are decoded and masked exactly as in the
 * message browser; each read of values is an audit event.
 */

function requireCompacted(viewer: RecordViewer): void {
  if (viewer.product.cleanupPolicy !== "compact") {
    throw new ConflictError(`"${viewer.product.name}" is not a compacted product (cleanup.policy=delete): it has no latest-state view.`, "NOT_COMPACTED");
  }
}

interface HeaderJson {
  key: string;
  value: string | null;
}

interface EntryRow {
  key: Uint8Array;
  value: Uint8Array;
  partition: number;
  offset: bigint;
  timestamp: Date;
  headers: unknown;
}

function entryView(viewer: RecordViewer, e: EntryRow) {
  const value: DecodedValue = decodeValue(Buffer.from(e.value), viewer.values);
  const headers = Array.isArray(e.headers) ? (e.headers as HeaderJson[]) : [];
  return {
    key: viewer.keyMasked ? MASKED_KEY : renderKey(Buffer.from(e.key)),
    value,
    partition: e.partition,
    offset: e.offset,
    timestamp: e.timestamp,
    headers: viewer.headersHidden ? [] : headers.map((h) => ({ key: h.key, value: h.value === null ? null : renderKey(Buffer.from(h.value, "base64")) })),
    keyMasked: viewer.keyMasked,
    headersHidden: viewer.headersHidden,
  };
}

/** The smallest byte string greater than every string starting with `prefix` (null: there is none). */
export function prefixSuccessor(prefix: Buffer): Buffer | null {
  for (let i = prefix.length - 1; i >= 0; i--) {
    if (prefix[i]! < 0xff) {
      const out = Buffer.from(prefix.subarray(0, i + 1));
      out[i] = prefix[i]! + 1;
      return out;
    }
  }
  return null;
}

/** The view's progress: per partition how far it has applied, and its lag behind the topic. */
export async function stateViewStatus(db: Db, actor: Actor, productId: string) {
  const viewer = await recordViewer(db, actor, productId);
  requireCompacted(viewer);
  const view = await db.stateView.findUnique({ where: { productId }, include: { partitions: { orderBy: { partition: "asc" } } } });
  const now = Date.now();
  const partitions = (view?.partitions ?? []).map((p) => {
    const lag = p.endOffset > p.nextOffset ? p.endOffset - p.nextOffset : 0n;
    return {
      partition: p.partition,
      nextOffset: p.nextOffset,
      endOffset: p.endOffset,
      lagRecords: lag,
      // Behind: at most the age of the last applied record (the next one is newer).
      lagSeconds: lag === 0n ? 0 : p.lastRecordAt ? Math.max(0, Math.round((now - p.lastRecordAt.getTime()) / 1000)) : null,
      lastRecordAt: p.lastRecordAt,
      caughtUpAt: p.caughtUpAt,
    };
  });
  const lagRecords = partitions.reduce((a, p) => a + p.lagRecords, 0n);
  const seconds = partitions.map((p) => p.lagSeconds);
  return {
    product: { id: viewer.product.id, name: viewer.product.name, topic: viewer.product.topicName },
    role: viewer.role,
    piiVisible: viewer.piiVisible,
    view: view
      ? {
          status: view.generation !== view.appliedGeneration ? "REBUILDING" : view.status,
          keyCount: view.keyCount,
          generation: view.generation,
          lastError: view.lastError,
          rebuildRequestedAt: view.rebuildRequestedAt,
          lastAppliedAt: view.lastAppliedAt,
          updatedAt: view.updatedAt,
        }
      : null,
    partitions,
    lag: { records: lagRecords, seconds: seconds.some((s) => s === null) ? null : Math.max(0, ...seconds.map((s) => s ?? 0)) },
  };
}

/** One key's latest value, with the partition, offset and timestamp it came from. */
export async function lookupStateKey(db: Db, actor: Actor, productId: string, rawKey: unknown, rawEncoding?: unknown) {
  const { key, encoding } = parseInput(stateKeyInput, { key: rawKey, encoding: rawEncoding });
  const viewer = await recordViewer(db, actor, productId);
  requireCompacted(viewer);
  const keyBytes = encoding === "hex" ? Buffer.from(key, "hex") : Buffer.from(key, "utf8");
  // The read and its audit event in one statement: every lookup leaves its own
  // row (key, found, piiVisible), written in the same commit as the read.
  const audit = auditInsertSql(actor, "state.key-read", "DataProduct", productId, Prisma.sql`jsonb_build_object('key', ${keyBytes.toString("hex").slice(0, 512)}::text, 'found', EXISTS (SELECT 1 FROM entry), 'piiVisible', ${viewer.piiVisible}::boolean)`);
  const [entry] = await db.$queryRaw<EntryRow[]>`
    WITH entry AS (SELECT key, value, partition, "offset", "timestamp", headers FROM "StateEntry" WHERE "productId" = ${productId} AND key = ${keyBytes}),
         audited AS (${audit})
    SELECT * FROM entry`;
  if (!entry) throw new NotFoundError(`Key "${key}" in the latest-state view of`, viewer.product.name);
  return entryView(viewer, entry);
}

/** A page of the view's keys in key order, optionally under a prefix, with their decoded values. */
export async function browseStateKeys(db: Db, actor: Actor, productId: string, rawInput: unknown) {
  const input = parseInput(browseStateInput, rawInput);
  const viewer = await recordViewer(db, actor, productId);
  requireCompacted(viewer);
  // A masked key must not come back through the page cursor (it was the key's hex) nor be found out by prefix:
  // such a viewer pages by position (`#<keys skipped>`), never by key.
  const skipped = input.after?.startsWith("#") ? Number(input.after.slice(1)) : null;
  if (viewer.keyMasked && input.prefix) throw new ValidationError("Some fields need attention.", { prefix: ["The key of this product is PII: searching keys by prefix needs PII access."] });
  if (viewer.keyMasked && input.after && skipped === null) throw new ValidationError("Some fields need attention.", { after: ["Page with the nextAfter of the previous page."] });
  if (!viewer.keyMasked && skipped !== null) throw new ValidationError("Some fields need attention.", { after: ["after is the hex of a key"] });
  const prefix = input.encoding === "hex" ? Buffer.from(input.prefix ?? "", "hex") : Buffer.from(input.prefix ?? "", "utf8");
  const after = input.after && skipped === null ? Buffer.from(input.after, "hex") : null;
  // A key range on the primary key index: prefix ≤ key < the prefix's successor.
  const from = after && Buffer.compare(after, prefix) >= 0 ? after : prefix;
  const upper = prefixSuccessor(prefix);
  const rows = await db.$queryRaw<{ key: Uint8Array; value: Uint8Array; partition: number; offset: bigint; timestamp: Date; headers: unknown }[]>`
    SELECT key, value, partition, "offset", "timestamp", headers FROM "StateEntry"
     WHERE "productId" = ${productId}
       AND ${after !== null && from === after ? Prisma.sql`key > ${from}` : Prisma.sql`key >= ${from}`}
       AND ${upper === null ? Prisma.sql`TRUE` : Prisma.sql`key < ${upper}`}
     ORDER BY key
     LIMIT ${input.limit + 1} OFFSET ${skipped ?? 0}`;
  const page = rows.slice(0, input.limit);
  await recordAudit(db, actor, "state.keys-browsed", "DataProduct", productId, { prefix: prefix.toString("hex").slice(0, 512), count: page.length, piiVisible: viewer.piiVisible });
  const last = page[page.length - 1];
  const shown = page.map((e) => entryView(viewer, e));
  const entries = shown.filter((e) => e.value.encoding !== "withheld");
  return {
    entries,
    /** Entries left out because their values do not match the product's schema (viewers without PII access only). */
    withheld: shown.length - entries.length,
    nextAfter: rows.length > input.limit && last ? (viewer.keyMasked ? `#${(skipped ?? 0) + page.length}` : Buffer.from(last.key).toString("hex")) : null,
    piiVisible: viewer.piiVisible,
    keyMasked: viewer.keyMasked,
    headersHidden: viewer.headersHidden,
  };
}
