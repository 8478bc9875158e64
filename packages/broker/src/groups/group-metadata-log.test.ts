import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ErrorCode } from "@kappa/kafka-protocol";
import { CompactedJournal } from "../storage/compacted-journal.ts";
import { GroupMetadataLog, GroupStoreError } from "./group-metadata-log.ts";
import type { GroupRecord } from "./group-record.ts";

const dirs: string[] = [];
afterEach(async () => {
  for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true });
});
async function dir(): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "kappa-group-log-"));
  dirs.push(d);
  return d;
}

const record = (generation: number, members: GroupRecord["members"] = []): GroupRecord => ({
  protocolType: "consumer",
  generation,
  protocol: members.length > 0 ? "range" : null,
  leader: members[0]?.memberId ?? null,
  currentStateTimestamp: 1,
  members,
});
const member = (memberId: string, groupInstanceId: string | null) => ({
  memberId,
  groupInstanceId,
  clientId: "c",
  clientHost: "/127.0.0.1",
  rebalanceTimeoutMs: 1000,
  sessionTimeoutMs: 10_000,
  subscription: Buffer.from("s").toString("base64"),
  assignment: Buffer.from("a").toString("base64"),
});

describe("group metadata log", () => {
  it("keeps the latest record per group across reopen, and forgets removed groups", async () => {
    const d = await dir();
    const warnings: string[] = [];
    const log = await GroupMetadataLog.open(d, { maxRecordBytes: 1 << 20, warn: (m) => warnings.push(m) });
    await log.store("g1", record(1, [member("m1", "i1")]));
    await log.store("g1", record(2, [member("m2", "i1")]));
    await log.store("g2", record(5));
    await log.store("g3", record(1));
    await log.remove("g3");
    await log.close();
    const again = await GroupMetadataLog.open(d, { maxRecordBytes: 1 << 20, warn: (m) => warnings.push(m) });
    const loaded = new Map(again.loaded());
    expect([...loaded.keys()].sort()).toEqual(["g1", "g2"]);
    expect(loaded.get("g1")).toMatchObject({ generation: 2, leader: "m2", members: [{ memberId: "m2", groupInstanceId: "i1" }] });
    expect(loaded.get("g2")).toMatchObject({ generation: 5, members: [] });
    expect(warnings).toEqual([]);
    await again.close();
  });

  it("refuses a record above message.max.bytes with UNKNOWN_SERVER_ERROR, as Kafka's group append does", async () => {
    const log = await GroupMetadataLog.open(await dir(), { maxRecordBytes: 300, warn: () => {} });
    const big = record(1, [member("m1", null), member("m2", null)]);
    await expect(log.store("g", big)).rejects.toSatisfy((e) => e instanceof GroupStoreError && e.code === ErrorCode.UNKNOWN_SERVER_ERROR);
    await log.close();
  });

  it("skips, with a warning, records that break the group invariants", async () => {
    const d = await dir();
    const raw = await CompactedJournal.open<unknown>(join(d, "groups", "metadata.log"));
    await raw.put("dup", record(1, [member("m1", "i"), member("m2", "i")]));
    await raw.put("noproto", { ...record(1, [member("m1", null)]), protocol: null });
    await raw.put("junk", { generation: "x" });
    await raw.put("ok", record(3));
    await raw.close();
    const warnings: string[] = [];
    const log = await GroupMetadataLog.open(d, { maxRecordBytes: 1 << 20, warn: (m) => warnings.push(m) });
    expect(log.loaded().map(([id]) => id)).toEqual(["ok"]);
    expect(warnings).toHaveLength(3);
    expect(warnings.join("\n")).toContain("group instance i appears twice");
    await log.close();
  });
});
