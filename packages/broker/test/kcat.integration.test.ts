// kcat (librdkafka 2.0.2 on Debian bookworm), unmodified, against the broker.
// kcat must be installed (Debian package `kcat`); .ci/run installs it.
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestBroker, uniqueName, type TestBroker } from "./helpers.ts";
import { runKcat } from "./sasl-helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

/** kcat against the test broker; a non-zero exit fails the test with kcat's stderr. */
async function kcat(args: string[], input?: string, timeoutMs = 30_000): Promise<{ stdout: string; stderr: string }> {
  const { code, stdout, stderr } = await runKcat(broker.bootstrap, args, input, timeoutMs);
  if (code !== 0) throw new Error(`kcat ${args.join(" ")} exited with ${code}\n${stderr}`);
  return { stdout, stderr };
}

/** Printable records without the delimiters kcat uses; varied sizes up to 64 KiB. */
function records(n: number): Array<{ key: string; value: string }> {
  return Array.from({ length: n }, (_, i) => ({
    key: `key-${i}`,
    value: `${i}:${randomBytes(i % 7 === 0 ? 48 * 1024 : 1 + (i % 300)).toString("base64")}`,
  }));
}

function asInput(recs: Array<{ key: string; value: string }>): string {
  return recs.map((r) => `${r.key}\t${r.value}\n`).join("");
}

function parseOutput(out: string): Array<{ key: string; value: string }> {
  return out
    .split("\n")
    .filter((l) => l !== "")
    .map((l) => {
      const tab = l.indexOf("\t");
      return { key: l.slice(0, tab), value: l.slice(tab + 1) };
    });
}

describe("kcat", () => {
  it("lists metadata (-L)", async () => {
    const topic = uniqueName("kcat-meta");
    await kcat(["-P", "-t", topic], "hello\n");
    const { stdout } = await kcat(["-L", "-J"]);
    const meta = JSON.parse(stdout) as { brokers: Array<{ id: number; name: string }>; topics: Array<{ topic: string; partitions: Array<{ partition: number; leader: number }> }> };
    expect(meta.brokers).toEqual([{ id: 1, name: broker.bootstrap }]);
    expect(meta.topics.find((t) => t.topic === topic)?.partitions).toEqual([expect.objectContaining({ partition: 0, leader: 1 })]);
  });

  it("produces with acks=all (-P) and consumes from beginning to end (-C -e), every record intact", async () => {
    const topic = uniqueName("kcat-pc");
    const recs = records(300);
    await kcat(["-P", "-t", topic, "-K", "\t", "-X", "acks=all"], asInput(recs));
    const { stdout } = await kcat(["-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k\t%s\n"]);
    expect(parseOutput(stdout)).toEqual(recs);
  });

  it("keeps every record intact when ~1 MB produce requests are pipelined (their frame buffers are reused)", async () => {
    // ~28 MB on one partition: dozens of ~1 MB requests in flight, each assembled in
    // a pooled buffer that goes back to the pool once its append is done. A buffer
    // reused too early would show up here as a corrupted or repeated record.
    const topic = uniqueName("kcat-big");
    const recs = records(3000);
    await kcat(["-P", "-t", topic, "-K", "\t", "-X", "acks=all", "-X", "linger.ms=20"], asInput(recs), 60_000);
    const { stdout } = await kcat(["-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k\t%s\n"], undefined, 60_000);
    expect(parseOutput(stdout)).toEqual(recs);
  });

  it("stores compressed batches as they arrive (gzip, snappy, lz4, zstd)", async () => {
    for (const codec of ["gzip", "snappy", "lz4", "zstd"]) {
      const topic = uniqueName(`kcat-${codec}`);
      const recs = records(50);
      await kcat(["-P", "-t", topic, "-K", "\t", "-z", codec, "-X", "acks=all"], asInput(recs));
      const { stdout } = await kcat(["-C", "-t", topic, "-o", "beginning", "-e", "-f", "%k\t%s\n"]);
      expect(parseOutput(stdout), codec).toEqual(recs);
    }
  });

  it("consumes as a group member (-G) and commits, so a second run resumes", async () => {
    const topic = uniqueName("kcat-group");
    const group = uniqueName("kcat-g");
    await new Promise<void>((resolve, reject) =>
      execFile("kcat", ["-b", broker.bootstrap, "-P", "-t", topic, "-p", "-1"], (err: Error | null) => (err ? reject(err) : resolve())).stdin?.end("x\n"),
    );
    const first = records(100);
    await kcat(["-P", "-t", topic, "-K", "\t"], asInput(first));
    const all = [{ key: "", value: "x" }, ...first];
    const run1 = await kcat(["-G", group, "-X", "auto.offset.reset=earliest", "-X", "enable.auto.commit=true", "-X", "auto.commit.interval.ms=100", "-e", "-f", "%k\t%s\n", topic]);
    expect(parseOutput(run1.stdout)).toEqual(all);
    const more = records(20).map((r) => ({ key: `more-${r.key}`, value: r.value }));
    await kcat(["-P", "-t", topic, "-K", "\t"], asInput(more));
    const run2 = await kcat(["-G", group, "-X", "auto.offset.reset=earliest", "-e", "-f", "%k\t%s\n", topic]);
    expect(parseOutput(run2.stdout)).toEqual(more);
  });
});
