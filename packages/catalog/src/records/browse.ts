import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ValidationError } from "../errors.ts";
import { consumeRateLimit } from "../rate-limit.ts";
import { decodeValue } from "./decode-value.ts";
import { encryptedFieldsView } from "./encrypted-fields.ts";
import { BROWSE_LIMITS, browseMessagesInput } from "./inputs.ts";
import type { PartitionBounds, RecordSource, SourceRecord } from "./source.ts";
import { recordViewer } from "./viewer.ts";
import { MASKED_KEY, renderKey } from "./wire.ts";

/*
 * The message browser: a page of a product's records, merged across the
 * chosen partitions in timestamp order, decoded with the product's schema and
 * masked for the viewer — on the server, before anything leaves it. Pages go
 * forwards from an offset or a timestamp, or backwards from the end (or from
 * a cursor); an optional key filter scans within the time budget. Every page
 * is an audit event naming the partitions and offset ranges read.
 */

export interface BrowseOptions {
  /** KAPPA_SECRETS_KEY: opens the product's DEKs to decrypt encrypted fields for viewers entitled to PII (none: shown encrypted). */
  secretsKey?: Buffer;
  /** Wall-clock budget for reading one page. */
  budgetMs: number;
  /** Pages per user per minute. */
  ratePerMinute: number;
  maxBytes?: number;
}

type Direction = "forward" | "backward";
interface Cursor {
  d: Direction;
  p: [number, string][];
}

const CHUNK_BYTES = 1024 * 1024;

function encodeCursor(d: Direction, positions: Map<number, bigint>): string {
  const c: Cursor = { d, p: [...positions].sort((a, b) => a[0] - b[0]).map(([p, o]) => [p, o.toString()]) };
  return Buffer.from(JSON.stringify(c), "utf8").toString("base64url");
}

function decodeCursor(raw: string): Cursor {
  try {
    const c: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (typeof c === "object" && c !== null && "d" in c && "p" in c && (c.d === "forward" || c.d === "backward") && Array.isArray(c.p) && c.p.length <= 1024) {
      const p: [number, string][] = [];
      for (const e of c.p) {
        if (!Array.isArray(e) || !Number.isInteger(e[0]) || typeof e[1] !== "string" || !/^\d{1,19}$/.test(e[1])) throw new Error("bad entry");
        p.push([e[0] as number, e[1]]);
      }
      return { d: c.d, p };
    }
  } catch {
    // fall through
  }
  throw new ValidationError("Some fields need attention.", { cursor: ["This page cursor is not valid; start again from the end or an offset."] });
}

const sizeOf = (r: SourceRecord) => (r.key?.length ?? 0) + (r.value?.length ?? 0);
const tsCompare = (a: SourceRecord, b: SourceRecord) => (a.timestamp < b.timestamp ? -1 : a.timestamp > b.timestamp ? 1 : a.partition - b.partition || (a.offset < b.offset ? -1 : 1));

interface Scan {
  bounds: PartitionBounds;
  /** Records read and matching, ascending by offset. */
  buffer: SourceRecord[];
  /** forward: next offset to read; backward: lowest offset read so far (inclusive). */
  pos: bigint;
  /** Exclusive upper bound of what is read (backward) or the start (forward). */
  start: bigint;
  exhausted: boolean;
}

export async function browseMessages(db: Db, actor: Actor, productId: string, rawQuery: unknown, source: RecordSource, options: BrowseOptions) {
  const input = parseInput(browseMessagesInput, rawQuery);
  const deadline = Date.now() + options.budgetMs;
  const maxBytes = options.maxBytes ?? BROWSE_LIMITS.maxBytes;
  const viewer = await recordViewer(db, actor, productId);
  await consumeRateLimit(db, `browse:${actor.id}`, options.ratePerMinute, 60_000, "message-browser pages");
  const topic = viewer.product.topicName;
  const cursor = input.cursor ? decodeCursor(input.cursor) : null;
  const wanted = cursor ? cursor.p.map(([p]) => p) : input.partition;
  const bounds = await source.bounds(topic, wanted);
  if (wanted) {
    const known = new Set(bounds.map((b) => b.partition));
    const missing = wanted.filter((p) => !known.has(p));
    if (missing.length > 0) throw new ValidationError("Some fields need attention.", { partition: [`${topic} has no partition ${missing.join(", ")} (it has ${bounds.length}).`] });
  }
  const direction: Direction = cursor?.d ?? input.direction ?? (input.offset !== undefined || input.timestamp !== undefined ? "forward" : "backward");
  const clamp = (b: PartitionBounds, o: bigint) => (o < b.earliest ? b.earliest : o > b.end ? b.end : o);
  const startOf = new Map<number, bigint>();
  if (cursor) for (const [p, o] of cursor.p) startOf.set(p, BigInt(o));
  else if (input.offset !== undefined) for (const b of bounds) startOf.set(b.partition, input.offset);
  else if (input.timestamp !== undefined) {
    const found = await source.offsetsForTimestamp(topic, bounds.map((b) => b.partition), input.timestamp);
    for (const b of bounds) startOf.set(b.partition, found.get(b.partition) ?? b.end);
  } else for (const b of bounds) startOf.set(b.partition, b.end);

  const keyFilter = input.key === undefined ? null : input.keyEncoding === "hex" ? Buffer.from(input.key, "hex") : Buffer.from(input.key, "utf8");
  const matches = (r: SourceRecord) => keyFilter === null || (r.key !== null && r.key.equals(keyFilter));
  let stop: string | null = null;

  const scans: Scan[] = bounds.map((b) => {
    const s = clamp(b, startOf.get(b.partition) ?? b.end);
    return { bounds: b, buffer: [], pos: s, start: s, exhausted: direction === "forward" ? s >= b.end : s <= b.earliest };
  });

  // Read: each partition up to `limit` matching records or its end, within the budget.
  const readRange = async (scan: Scan, from: bigint, to: bigint): Promise<SourceRecord[]> => {
    const out: SourceRecord[] = [];
    let at = from;
    while (at < to && Date.now() < deadline) {
      const r = await source.read(topic, scan.bounds.partition, at, CHUNK_BYTES);
      for (const rec of r.records) if (rec.offset < to && matches(rec)) out.push(rec);
      if (r.undecodable) {
        stop = `Partition ${scan.bounds.partition} has a batch at offset ${r.undecodable.offset} this browser cannot read: ${r.undecodable.reason}`;
        return out;
      }
      if (r.next <= at) break; // nothing more there (a gap at the end, or the end moved back)
      at = r.next;
    }
    if (at < to && Date.now() >= deadline) stop = `The time budget of ${options.budgetMs} ms ran out; the page holds what was read so far.`;
    return out;
  };

  if (direction === "forward") {
    for (const scan of scans) {
      if (scan.exhausted) continue;
      let at = scan.pos;
      while (scan.buffer.length < input.limit && at < scan.bounds.end && Date.now() < deadline && stop === null) {
        const r = await source.read(topic, scan.bounds.partition, at, CHUNK_BYTES);
        for (const rec of r.records) if (matches(rec)) scan.buffer.push(rec);
        if (r.undecodable) stop = `Partition ${scan.bounds.partition} has a batch at offset ${r.undecodable.offset} this browser cannot read: ${r.undecodable.reason}`;
        if (r.next <= at) break;
        at = r.next;
      }
      scan.pos = at;
      scan.exhausted = at >= scan.bounds.end;
      if (Date.now() >= deadline && !scan.exhausted && stop === null) stop = `The time budget of ${options.budgetMs} ms ran out; the page holds what was read so far.`;
    }
  } else {
    for (const scan of scans) {
      let window = BigInt(Math.max(input.limit, 1));
      let upper = scan.start;
      while (scan.buffer.length < input.limit && upper > scan.bounds.earliest && Date.now() < deadline && stop === null) {
        const lower = upper - window < scan.bounds.earliest ? scan.bounds.earliest : upper - window;
        const got = await readRange(scan, lower, upper);
        scan.buffer = [...got, ...scan.buffer];
        upper = lower;
        // A key filter or gaps (compaction) leave the window short: look further back, faster.
        window *= 4n;
      }
      scan.pos = upper;
      scan.exhausted = upper <= scan.bounds.earliest;
    }
  }

  // Merge in timestamp order; a partition whose buffer ran dry before its end stops the merge (its next record is unknown).
  const emitted: SourceRecord[] = [];
  let bytes = 0;
  const heads = scans.map((s) => (direction === "forward" ? 0 : s.buffer.length - 1));
  for (;;) {
    if (emitted.length >= input.limit) break;
    let best = -1;
    let blocked = false;
    for (let i = 0; i < scans.length; i++) {
      const s = scans[i]!;
      const h = heads[i]!;
      const has = direction === "forward" ? h < s.buffer.length : h >= 0;
      if (!has) {
        if (!s.exhausted) blocked = true;
        continue;
      }
      const rec = s.buffer[h]!;
      if (best < 0) best = i;
      else {
        const other = scans[best]!.buffer[heads[best]!]!;
        const c = tsCompare(rec, other);
        if (direction === "forward" ? c < 0 : c > 0) best = i;
      }
    }
    if (best < 0 || blocked) break;
    const rec = scans[best]!.buffer[heads[best]!]!;
    if (emitted.length > 0 && bytes + sizeOf(rec) > maxBytes) {
      stop ??= `The page reached the ${Math.round(maxBytes / 1024 / 1024)} MiB limit.`;
      break;
    }
    bytes += sizeOf(rec);
    emitted.push(rec);
    heads[best] = heads[best]! + (direction === "forward" ? 1 : -1);
  }

  // Cursors: where the next page in each direction starts, per partition.
  const onward = new Map<number, bigint>();
  const back = new Map<number, bigint>();
  scans.forEach((s, i) => {
    const p = s.bounds.partition;
    const mine = emitted.filter((r) => r.partition === p);
    const h = heads[i]!;
    const consumedAll = direction === "forward" ? h >= s.buffer.length : h < 0;
    if (direction === "forward") {
      onward.set(p, consumedAll ? s.pos : (s.buffer[h]?.offset ?? s.pos));
      back.set(p, mine[0]?.offset ?? s.start);
    } else {
      back.set(p, consumedAll ? s.pos : (s.buffer[h]!.offset + 1n));
      onward.set(p, mine.length > 0 ? mine[0]!.offset + 1n : s.start);
    }
  });
  const newerLeft = scans.some((s) => (onward.get(s.bounds.partition) ?? s.bounds.end) < s.bounds.end);
  const olderLeft = scans.some((s) => (back.get(s.bounds.partition) ?? s.bounds.earliest) > s.bounds.earliest);

  // Encrypted fields (issue 29): said for every viewer; decrypted for a viewer entitled to PII, counted in the audit.
  const encrypted = await encryptedFieldsView(db, productId, viewer, options.secretsKey);
  const shown = emitted.map((r) => ({
    partition: r.partition,
    offset: r.offset,
    timestamp: new Date(Number(r.timestamp)),
    timestampType: r.timestampType,
    key: viewer.keyMasked && r.key !== null ? MASKED_KEY : renderKey(r.key),
    headers: viewer.headersHidden ? [] : r.headers.map((h) => ({ key: h.key, value: h.value === null ? null : renderKey(h.value) })),
    value: encrypted.show(decodeValue(r.value, viewer.values)),
    size: sizeOf(r),
  }));

  await recordAudit(db, actor, "product.messages-browsed", "DataProduct", productId, {
    topic,
    direction,
    key: keyFilter ? keyFilter.toString("hex").slice(0, 512) : null,
    piiVisible: viewer.piiVisible,
    records: emitted.length,
    ...(viewer.encryptedPaths.length > 0 ? { decryptedFields: encrypted.decryptedFields() } : {}),
    ranges: scans.map((s) => ({ partition: s.bounds.partition, from: (direction === "forward" ? s.start : s.pos).toString(), to: (direction === "forward" ? s.pos : s.start).toString() })),
  });

  const records = shown.filter((r) => r.value.encoding !== "withheld");
  return {
    records,
    /** Records left out because their values do not match the product's schema (viewers without PII access only). */
    withheld: shown.length - records.length,
    keyMasked: viewer.keyMasked,
    headersHidden: viewer.headersHidden,
    order: direction === "forward" ? ("oldest-first" as const) : ("newest-first" as const),
    partitions: scans.map((s) => ({ partition: s.bounds.partition, earliest: s.bounds.earliest, end: s.bounds.end })),
    next: newerLeft ? encodeCursor("forward", onward) : null,
    previous: olderLeft ? encodeCursor("backward", back) : null,
    truncated: stop,
    role: viewer.role,
    piiVisible: viewer.piiVisible,
    sensitivePaths: viewer.sensitivePaths,
  };
}
