// Group metadata, durable: `<log.dirs>/groups/metadata.log`, a compacted journal
// (src/storage/compacted-journal.ts) keyed by group id whose values are
// GroupRecords — the part of Kafka's __consumer_offsets that holds
// GroupMetadataValue records. Committed offsets are not here: they stay in the
// storage engine's metadata journal (src/storage/group-offset-store.ts).
//
// A write is fsynced before it resolves; the group answers the request that
// caused it (the leader's SyncGroup, a static member's JoinGroup) only then, as
// Kafka answers after its __consumer_offsets append. Errors map as Kafka's
// appendGroupMetadataErrorToResponseError does: a record above message.max.bytes
// (Kafka's RECORD_LIST_TOO_LARGE) → UNKNOWN_SERVER_ERROR; a failed disk write
// (KAFKA_STORAGE_ERROR) → NOT_COORDINATOR.
import { join } from "node:path";
import { ErrorCode } from "@kappa/kafka-protocol";
import { CompactedJournal } from "../storage/compacted-journal.ts";
import { parseGroupRecord, type GroupRecord } from "./group-record.ts";

/** A failed group metadata write, with the error code the member's response carries. */
export class GroupStoreError extends Error {
  constructor(
    readonly code: number,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "GroupStoreError";
  }
}

/** What the coordinator needs from durable group metadata. */
export interface GroupMetadataStore {
  /** The groups read at open, valid records only. */
  loaded(): Array<[string, GroupRecord]>;
  store(groupId: string, record: GroupRecord): Promise<void>;
  remove(groupId: string): Promise<void>;
  close(): Promise<void>;
}

export class GroupMetadataLog implements GroupMetadataStore {
  private readonly valid: Array<[string, GroupRecord]> = [];

  private constructor(
    private readonly journal: CompactedJournal<GroupRecord>,
    private readonly maxRecordBytes: number,
    warn: (msg: string) => void,
  ) {
    for (const [groupId, value] of journal.entries()) {
      const parsed = parseGroupRecord(value);
      if ("problem" in parsed) warn(`group metadata log: record of group ${groupId} skipped: ${parsed.problem}`);
      else this.valid.push([groupId, parsed.record]);
    }
  }

  static async open(dataDir: string, opts: { maxRecordBytes: number; warn: (msg: string) => void }): Promise<GroupMetadataLog> {
    const journal = await CompactedJournal.open<GroupRecord>(join(dataDir, "groups", "metadata.log"));
    if (journal.truncatedBytes > 0) opts.warn(`group metadata log: cut ${journal.truncatedBytes} torn byte(s) at its end (never acknowledged)`);
    return new GroupMetadataLog(journal, opts.maxRecordBytes, opts.warn);
  }

  loaded(): Array<[string, GroupRecord]> {
    return [...this.valid];
  }

  async store(groupId: string, record: GroupRecord): Promise<void> {
    const bytes = Buffer.byteLength(JSON.stringify(record), "utf8") + Buffer.byteLength(groupId, "utf8");
    if (bytes > this.maxRecordBytes) {
      throw new GroupStoreError(ErrorCode.UNKNOWN_SERVER_ERROR, `group ${groupId}: metadata record of ${bytes} bytes exceeds message.max.bytes (${this.maxRecordBytes})`);
    }
    await this.write(groupId, record);
  }

  remove(groupId: string): Promise<void> {
    return this.write(groupId, null);
  }

  private async write(groupId: string, record: GroupRecord | null): Promise<void> {
    try {
      await this.journal.put(groupId, record);
    } catch (err) {
      throw new GroupStoreError(ErrorCode.NOT_COORDINATOR, `group ${groupId}: writing group metadata failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err });
    }
  }

  close(): Promise<void> {
    return this.journal.close();
  }
}
