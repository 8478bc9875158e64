import { appendFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { afterEach, beforeEach, expect, it } from "vitest";
import { MetadataStore } from "./metadata.ts";
import { tempDir } from "./test-helpers.ts";

let dir: { path: string; cleanup: () => Promise<void> };
beforeEach(async () => {
  dir = await tempDir();
});
afterEach(async () => {
  await dir.cleanup();
});

it("replays fsynced journal entries after a crash (no close, no snapshot) and cuts a torn tail", async () => {
  const a = await MetadataStore.open(dir.path);
  await a.commit({ op: "createTopic", name: "t", topicId: "id-1", partitions: 3, configs: { "retention.ms": "5" } });
  await Promise.all([
    a.commit({ op: "commitOffsets", group: "g", offsets: [{ topic: "t", partition: 0, offset: "7", leaderEpoch: -1, metadata: "", commitTimestamp: "1" }] }),
    a.commit({ op: "logStart", name: "t", topicId: "id-1", partition: 2, offset: "40" }),
    a.commit({ op: "logStart", name: "t", topicId: "stale-id", partition: 1, offset: "99" }),
    a.commit({ op: "producerIdBlock", end: "2000" }),
  ]);
  // "Crash": the store is abandoned without close(); then a half-written entry appears.
  const journal = join(dir.path, "journal.log");
  const good = (await stat(journal)).size;
  await appendFile(journal, Buffer.from([0, 0, 1, 0, 0xde, 0xad, 0xbe, 0xef, 0x7b, 0x22]));

  const b = await MetadataStore.open(dir.path);
  expect(b.truncatedBytes).toBe(10);
  expect((await stat(journal)).size).toBe(good);
  expect(b.state.topics.t).toMatchObject({ partitions: 3, configs: { "retention.ms": "5" }, logStartOffsets: { "2": "40" } });
  expect(b.state.groups.g?.t?.["0"]?.offset).toBe("7");
  expect(b.state.producerIdBlockEnd).toBe("2000");

  // A clean close folds the journal into the snapshot; new entries replay on top of it.
  await b.close();
  const c = await MetadataStore.open(dir.path);
  await c.commit({ op: "setPartitions", name: "t", partitions: 5 });
  const d = await MetadataStore.open(dir.path);
  expect(d.state.topics.t?.partitions).toBe(5);
  expect(d.state.topics.t?.logStartOffsets).toEqual({ "2": "40" });
  await d.close();
});
