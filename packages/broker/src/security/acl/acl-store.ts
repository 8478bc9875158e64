// Durable ACLs: `<log.dirs>/acls/journal.log` (appended, fsynced) folded now and
// then into `<log.dirs>/acls/snapshot.json` (atomically replaced).
//
// Journal entry: uint32 length, uint32 CRC-32C of the payload, UTF-8 JSON
// `{ seq, op: "create" | "delete", acls: [[type, name, pattern, principal, host, op, permission], ...] }`.
// One CreateAcls/DeleteAcls request is one entry, so a request's ACLs appear
// all together or not at all after a crash. An entry is fsynced before the
// change is applied in memory and answered; a torn tail (crash mid-write) fails
// its length or CRC check and is cut off on open, as nothing after it was
// acknowledged. The snapshot records the last sequence it covers, so a crash
// between writing it and emptying the journal only makes replay skip entries.
//
// Opening is synchronous (the broker core is built synchronously and must
// authorize from its first request); appends open, write, fsync and close the
// journal, so the store holds no file descriptor between ACL changes.
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync, readSync, ftruncateSync, fsyncSync } from "node:fs";
import { open } from "node:fs/promises";
import { join } from "node:path";
import { crc32c } from "../../storage/batch.ts";
import { fsyncDir, writeFileAtomic } from "../../storage/files.ts";
import type { AclBinding } from "./types.ts";

type Tuple = [number, string, number, string, string, number, number];

export interface AclChange {
  op: "create" | "delete";
  acls: AclBinding[];
}

/** Rewrite the snapshot once the journal is this large (default). */
export const SNAPSHOT_AFTER_BYTES = 4 * 1024 * 1024;

function toTuple(b: AclBinding): Tuple {
  return [b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission];
}

function fromTuple(t: Tuple): AclBinding {
  return { resourceType: t[0], resourceName: t[1], patternType: t[2], principal: t[3], host: t[4], operation: t[5], permission: t[6] };
}

export class AclStore {
  private seq = 0;
  private journalSize = 0;
  /** Serializes appends and snapshots. */
  private tail: Promise<void> = Promise.resolve();
  /** Bytes cut from a torn journal tail on open (for logs and tests). */
  truncatedBytes = 0;

  private constructor(
    readonly dir: string,
    private readonly snapshotAfterBytes: number,
  ) {}

  private get journalPath(): string {
    return join(this.dir, "journal.log");
  }
  private get snapshotPath(): string {
    return join(this.dir, "snapshot.json");
  }

  /** Loads the stored ACLs: `apply` is called for the snapshot, then for each journal entry in order. */
  static openSync(dir: string, apply: (change: AclChange) => void, snapshotAfterBytes = SNAPSHOT_AFTER_BYTES): AclStore {
    mkdirSync(dir, { recursive: true });
    const s = new AclStore(dir, snapshotAfterBytes);
    try {
      const snap = JSON.parse(readFileSync(s.snapshotPath, "utf8")) as { seq: number; acls: Tuple[] };
      s.seq = snap.seq;
      apply({ op: "create", acls: snap.acls.map(fromTuple) });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== "ENOENT") throw new Error(`cannot read ACL snapshot ${s.snapshotPath}: ${(err as Error).message}`, { cause: err });
    }
    const fd = openSync(s.journalPath, "a+");
    try {
      const size = fstatSync(fd).size;
      const buf = Buffer.allocUnsafe(size);
      let got = 0;
      while (got < size) {
        const n = readSync(fd, buf, got, size - got, got);
        if (n === 0) break;
        got += n;
      }
      let pos = 0;
      while (pos + 8 <= got) {
        const len = buf.readUInt32BE(pos);
        if (pos + 8 + len > got) break;
        const payload = buf.subarray(pos + 8, pos + 8 + len);
        if (crc32c(payload) !== buf.readUInt32BE(pos + 4)) break;
        const rec = JSON.parse(payload.toString("utf8")) as { seq: number; op: AclChange["op"]; acls: Tuple[] };
        if (rec.seq > s.seq) {
          apply({ op: rec.op, acls: rec.acls.map(fromTuple) });
          s.seq = rec.seq;
        }
        pos += 8 + len;
      }
      if (pos < size) {
        s.truncatedBytes = size - pos;
        ftruncateSync(fd, pos);
        fsyncSync(fd);
      }
      s.journalSize = pos;
    } finally {
      closeSync(fd);
    }
    return s;
  }

  /**
   * Durably records `change`, then calls `apply` (the in-memory change) before
   * resolving. Changes are written and applied in call order. `snapshotOf`
   * gives the full ACL set, for the occasional snapshot.
   */
  append(change: AclChange, apply: () => void, snapshotOf: () => AclBinding[]): Promise<void> {
    const run = async (): Promise<void> => {
      const seq = this.seq + 1;
      const payload = Buffer.from(JSON.stringify({ seq, op: change.op, acls: change.acls.map(toTuple) }), "utf8");
      const entry = Buffer.allocUnsafe(8 + payload.length);
      entry.writeUInt32BE(payload.length, 0);
      entry.writeUInt32BE(crc32c(payload), 4);
      payload.copy(entry, 8);
      const h = await open(this.journalPath, "r+");
      try {
        let done = 0;
        while (done < entry.length) {
          const { bytesWritten } = await h.write(entry, done, entry.length - done, this.journalSize + done);
          done += bytesWritten;
        }
        await h.datasync();
      } finally {
        await h.close();
      }
      this.seq = seq;
      this.journalSize += entry.length;
      apply();
    };
    const result = this.tail.then(run);
    // A failed write must not wedge later ones; each caller sees its own outcome.
    this.tail = result.then(
      () => (this.journalSize > this.snapshotAfterBytes ? this.snapshot(snapshotOf) : undefined),
      () => undefined,
    );
    return result;
  }

  private async snapshot(snapshotOf: () => AclBinding[]): Promise<void> {
    // Runs after the last append applied its change, so it covers sequence `seq`.
    await writeFileAtomic(this.snapshotPath, JSON.stringify({ seq: this.seq, acls: snapshotOf().map(toTuple) }));
    const h = await open(this.journalPath, "r+");
    try {
      await h.truncate(0);
      await h.sync();
    } finally {
      await h.close();
    }
    this.journalSize = 0;
    await fsyncDir(this.dir);
  }

  /** Waits for pending writes (and a snapshot they triggered). */
  async flush(): Promise<void> {
    await this.tail;
  }
}
