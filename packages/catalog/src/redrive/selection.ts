import type { Prisma } from "@prisma/client";
import { z } from "zod";
import { ValidationError } from "../errors.ts";
import { deadLetterRule } from "../records/dead-letters.ts";
import type { PartitionBounds, RecordSource, SourceRecord } from "../records/source.ts";

/*
 * Which dead letters a redrive sends (issue 29): explicit records, a filter
 * (the failed rule, a partition, an offset range, a time range), or all of
 * them — always bounded by the dead-letter topic's end offsets when the owner
 * asked (`upTo`), so a record that lands later is never swept into a request
 * nobody previewed. The portal's preview and the worker's run resolve a
 * selection with the same code, so what was previewed is what is sent (minus
 * what another request redrove in between).
 */

/** The most dead letters one request selects or scans: more is refused with a request to narrow the filter. */
export const MAX_REDRIVE_RECORDS = 10_000;
/** Records of the preview shown (masked like the DLQ panel). */
export const REDRIVE_PREVIEW_SHOWN = 20;
/** One read of the dead-letter topic. */
const READ_BYTES = 1024 * 1024;
/** Reads one explicit selection may cost (offsets far apart cost one each): beyond, a filter is the tool. */
const MAX_EXPLICIT_READS = 500;

const offset = z
  .union([z.number().int("must be a whole number").min(0, "must be 0 or more").max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,18}$/, "must be a non-negative whole number")])
  .transform((v) => BigInt(v));
const partition = z.number().int("must be a whole number").min(0, "must be 0 or more").max(1_000_000);
const time = z.iso.datetime({ offset: true, message: "must be an ISO 8601 date and time" }).transform((v) => new Date(v));

export const redriveSelectionInput = z.discriminatedUnion(
  "kind",
  [
    z.object({ kind: z.literal("records"), records: z.array(z.object({ partition, offset }).strict()).min(1, "select at least one record").max(MAX_REDRIVE_RECORDS, `at most ${MAX_REDRIVE_RECORDS} records per request`) }).strict(),
    z
      .object({
        kind: z.literal("filter"),
        /** The rule the dead letter failed (its `__rule.name` header), exactly. */
        rule: z.string().trim().min(1, "must not be empty").max(200).optional(),
        partition: partition.optional(),
        /** Offsets, inclusive. */
        fromOffset: offset.optional(),
        toOffset: offset.optional(),
        /** Record timestamps, inclusive. */
        fromTime: time.optional(),
        toTime: time.optional(),
      })
      .strict()
      .superRefine((f, ctx) => {
        if (f.rule === undefined && f.partition === undefined && f.fromOffset === undefined && f.toOffset === undefined && f.fromTime === undefined && f.toTime === undefined) {
          ctx.addIssue({ code: "custom", message: "a filter needs at least one of rule, partition, fromOffset, toOffset, fromTime, toTime (or select all)", path: ["rule"] });
        }
        if (f.fromOffset !== undefined && f.toOffset !== undefined && f.fromOffset > f.toOffset) ctx.addIssue({ code: "custom", message: "must not be after toOffset", path: ["fromOffset"] });
        if (f.fromTime && f.toTime && f.fromTime > f.toTime) ctx.addIssue({ code: "custom", message: "must not be after toTime", path: ["fromTime"] });
      }),
    z.object({ kind: z.literal("all") }).strict(),
  ],
  { error: () => 'must be { "kind": "records" | "filter" | "all", … }' },
);
export type RedriveSelection = z.output<typeof redriveSelectionInput>;

/** The selection as stored on the request and served back (offsets and times as strings). */
export function selectionJson(s: RedriveSelection): Prisma.InputJsonObject {
  if (s.kind === "records") return { kind: "records", records: s.records.map((r) => ({ partition: r.partition, offset: r.offset.toString() })) };
  if (s.kind === "all") return { kind: "all" };
  return {
    kind: "filter",
    ...(s.rule !== undefined ? { rule: s.rule } : {}),
    ...(s.partition !== undefined ? { partition: s.partition } : {}),
    ...(s.fromOffset !== undefined ? { fromOffset: s.fromOffset.toString() } : {}),
    ...(s.toOffset !== undefined ? { toOffset: s.toOffset.toString() } : {}),
    ...(s.fromTime ? { fromTime: s.fromTime.toISOString() } : {}),
    ...(s.toTime ? { toTime: s.toTime.toISOString() } : {}),
  };
}

/** A stored selection, parsed again (the worker trusts nothing it reads back either). */
export function parseStoredSelection(json: unknown): RedriveSelection {
  const parsed = redriveSelectionInput.safeParse(json);
  if (!parsed.success) throw new Error(`stored redrive selection is malformed: ${parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`);
  return parsed.data;
}

export type UpTo = { partition: number; end: bigint }[];

export function upToJson(upTo: UpTo): { partition: number; end: string }[] {
  return upTo.map((u) => ({ partition: u.partition, end: u.end.toString() }));
}

export function parseUpTo(json: unknown): UpTo {
  if (!Array.isArray(json)) throw new Error("stored redrive bounds are malformed");
  return json.map((u: unknown) => {
    const o = u as { partition?: unknown; end?: unknown };
    if (typeof o.partition !== "number" || typeof o.end !== "string" || !/^\d+$/.test(o.end)) throw new Error("stored redrive bounds are malformed");
    return { partition: o.partition, end: BigInt(o.end) };
  });
}

function matches(s: RedriveSelection, r: SourceRecord): boolean {
  if (s.kind !== "filter") return true;
  if (s.partition !== undefined && r.partition !== s.partition) return false;
  if (s.fromOffset !== undefined && r.offset < s.fromOffset) return false;
  if (s.toOffset !== undefined && r.offset > s.toOffset) return false;
  const ts = Number(r.timestamp);
  if (s.fromTime && ts < s.fromTime.getTime()) return false;
  if (s.toTime && ts > s.toTime.getTime()) return false;
  if (s.rule !== undefined && deadLetterRule(r) !== s.rule) return false;
  return true;
}

export interface ResolvedSelection {
  /** The DLQ's partitions as read, with `end` capped at the request's bound. */
  bounds: PartitionBounds[];
  /** The dead letters the selection names, oldest first per partition. */
  records: SourceRecord[];
}

const tooMany = () => new ValidationError(`More than ${MAX_REDRIVE_RECORDS} dead letters match; narrow the selection (a partition, an offset or time range).`, { selection: [`matches more than ${MAX_REDRIVE_RECORDS} records`] });

/**
 * Reads the dead letters a selection names from `topic`, never past `upTo`
 * (the DLQ's end offsets at the request; absent: now, for a new request).
 * Explicit records must exist: a partition the topic lacks or an offset
 * outside what it holds is refused with the field that names it.
 */
export async function resolveSelection(source: Pick<RecordSource, "bounds" | "read">, topic: string, selection: RedriveSelection, upTo?: UpTo): Promise<ResolvedSelection> {
  const cap = upTo ? new Map(upTo.map((u) => [u.partition, u.end])) : null;
  const bounds = (await source.bounds(topic)).map((b) => {
    const limit = cap ? (cap.get(b.partition) ?? b.earliest) : b.end;
    return { ...b, end: limit < b.end ? limit : b.end };
  });
  const byPartition = new Map(bounds.map((b) => [b.partition, b]));
  const out: SourceRecord[] = [];

  if (selection.kind === "records") {
    const wanted = new Map<number, Set<bigint>>();
    const problems: Record<string, string[]> = {};
    selection.records.forEach((r, i) => {
      const b = byPartition.get(r.partition);
      if (!b) problems[`selection.records.${i}.partition`] = [`${topic} has no partition ${r.partition}`];
      else if (r.offset < b.earliest || r.offset >= b.end) problems[`selection.records.${i}.offset`] = [b.end > b.earliest ? `partition ${r.partition} holds offsets ${b.earliest}–${b.end - 1n}` : `partition ${r.partition} holds no records`];
      else wanted.set(r.partition, (wanted.get(r.partition) ?? new Set()).add(r.offset));
    });
    if (Object.keys(problems).length > 0) throw new ValidationError("Some selected records are not in the dead-letter topic.", problems);
    let reads = 0;
    for (const [p, offsets] of wanted) {
      const b = byPartition.get(p);
      if (!b) continue;
      const remaining = [...offsets].sort((a, c) => (a < c ? -1 : a > c ? 1 : 0));
      // Read from each offset not yet seen: dense selections cost one read per MiB, sparse ones one per record.
      while (remaining.length > 0) {
        if (++reads > MAX_EXPLICIT_READS) throw new ValidationError(`The selected records lie too far apart to read in one request (more than ${MAX_EXPLICIT_READS} reads); select fewer or use a filter with an offset range.`, { "selection.records": ["too far apart: select fewer or use a filter"] });
        const from = remaining[0] as bigint;
        const read = await source.read(topic, p, from, READ_BYTES);
        const got = read.records.filter((x) => offsets.has(x.offset) && x.offset < b.end);
        out.push(...got);
        const seen = new Set(got.map((x) => x.offset));
        const before = remaining.length;
        for (let i = remaining.length - 1; i >= 0; i--) if (seen.has(remaining[i] as bigint) || (remaining[i] as bigint) < read.next) remaining.splice(i, 1);
        // Nothing advanced (an undecodable batch, a compacted gap at the end): what is left is not readable.
        if (remaining.length === before) break;
      }
    }
    return { bounds, records: out };
  }

  let scanned = 0;
  for (const b of bounds) {
    if (selection.kind === "filter" && selection.partition !== undefined && b.partition !== selection.partition) continue;
    let at = b.earliest;
    if (selection.kind === "filter" && selection.fromOffset !== undefined && selection.fromOffset > at) at = selection.fromOffset;
    let stop = b.end;
    if (selection.kind === "filter" && selection.toOffset !== undefined && selection.toOffset + 1n < stop) stop = selection.toOffset + 1n;
    while (at < stop) {
      const read = await source.read(topic, b.partition, at, READ_BYTES);
      for (const r of read.records) {
        if (r.offset >= stop) break;
        if (++scanned > MAX_REDRIVE_RECORDS * 5) throw tooMany();
        if (matches(selection, r)) {
          out.push(r);
          if (out.length > MAX_REDRIVE_RECORDS) throw tooMany();
        }
      }
      if (read.undecodable || read.next <= at) break;
      at = read.next;
    }
  }
  return { bounds, records: out };
}

/** The header a redriven record carries: where in the dead-letter topic it came from. */
export const REDRIVEN_FROM_HEADER = "kappa.redriven-from";
/** … and the request that sent it. */
export const REDRIVE_REQUEST_HEADER = "kappa.redrive-request";

export function redrivenFrom(dlqTopic: string, partition: number, offset: bigint): string {
  return `${dlqTopic}/${partition}/${offset}`;
}

/** Headers a DLQ action wrote about the failure (`__rule.*`): not carried back into the product topic. */
export function isDeadLetterHeader(key: string): boolean {
  return key.startsWith("__rule.");
}
