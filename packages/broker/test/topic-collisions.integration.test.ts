// Topic names that collide once '.' and '_' are equated (issue 30 item 14):
// Kafka's controller refuses them (ReplicationControlManager.validateNewTopicNames,
// INVALID_TOPIC_EXCEPTION "Topic 'x' collides with existing topic: y"), because
// both topics would share one metric name. Checked with kafkajs and the raw
// protocol, under concurrent creation from many connections, and after a restart.
import { afterEach, describe, expect, it } from "vitest";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { RawClient, createTopicsReady, kafkaClient, startTestBroker, waitFor, type TestBroker } from "./helpers.ts";

const brokers: TestBroker[] = [];
afterEach(async () => {
  await Promise.all(brokers.splice(0).map((b) => b.cleanup()));
});

async function broker(dataDir?: string): Promise<TestBroker> {
  const b = await startTestBroker({ "auto.create.topics.enable": false }, dataDir);
  brokers.push(b);
  return b;
}

/** Which of `names` exist, as Metadata answers. */
async function existing(port: number, names: string[]): Promise<string[]> {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.Metadata, 8, { topics: names.map((name) => ({ name })), allowAutoTopicCreation: false });
    return r.body.topics.filter((t) => t.errorCode === ErrorCode.NONE).map((t) => t.name ?? "").sort();
  } finally {
    c.close();
  }
}

async function createRaw(port: number, names: string[], validateOnly = false) {
  const c = await RawClient.connect(port);
  try {
    const r = await c.request(ApiKey.CreateTopics, 4, {
      topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 10_000,
      validateOnly,
    });
    return r.body.topics;
  } finally {
    c.close();
  }
}

describe("topic name collisions ('.' vs '_')", () => {
  it("kafkajs: a topic colliding with an existing one is refused with Kafka's error, and is never created", async () => {
    const b = await broker();
    const admin = kafkaClient(b.bootstrap, { retry: { retries: 0 } }).admin();
    await admin.connect();
    try {
      // createTopicsReady: kafkajs' own wait for leaders throws Kafka 4.x's UNKNOWN_TOPIC_OR_PARTITION (helpers.ts).
      await createTopicsReady(admin, { topics: [{ topic: "orders.v1" }] });
      const err: unknown = await admin.createTopics({ topics: [{ topic: "orders_v1" }] }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).not.toBeNull();
      const inner = (err as { errors?: Array<{ type?: string; message?: string }> }).errors?.[0];
      expect(inner?.type).toBe("INVALID_TOPIC_EXCEPTION");
      expect(await admin.listTopics()).toEqual(["orders.v1"]);
      // Names without '.'/'_' and names that differ in other characters do not collide.
      await createTopicsReady(admin, { topics: [{ topic: "orders-v1" }, { topic: "orders.v2" }] });
      expect((await admin.listTopics()).sort()).toEqual(["orders-v1", "orders.v1", "orders.v2"]);
    } finally {
      await admin.disconnect();
    }
  });

  it("CreateTopics: the message names the existing topic; validate_only is refused too; the same name stays TOPIC_ALREADY_EXISTS", async () => {
    const b = await broker();
    expect((await createRaw(b.port, ["a_b.c"]))[0]).toMatchObject({ errorCode: ErrorCode.NONE });
    const results = await createRaw(b.port, ["a.b_c", "a_b.c", "a.b.c-other"]);
    expect(results).toEqual([
      expect.objectContaining({ name: "a.b_c", errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: "Topic 'a.b_c' collides with existing topic: a_b.c" }),
      expect.objectContaining({ name: "a_b.c", errorCode: ErrorCode.TOPIC_ALREADY_EXISTS, errorMessage: "Topic 'a_b.c' already exists." }),
      expect.objectContaining({ name: "a.b.c-other", errorCode: ErrorCode.NONE }),
    ]);
    const validated = await createRaw(b.port, ["a_b_c"], true);
    expect(validated[0]).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: "Topic 'a_b_c' collides with existing topic: a_b.c" });
    // Two colliding new names in one request: Kafka's controller checks new names against existing topics only
    // (ReplicationControlManager.validateNewTopicNames), so both are created; this broker does the same.
    const pair = await createRaw(b.port, ["x.y", "x_y"]);
    expect(pair.map((t) => t.errorCode)).toEqual([ErrorCode.NONE, ErrorCode.NONE]);
    // Metadata may show a created topic a moment after CreateTopics answered (Kafka).
    const names = ["a.b_c", "a_b.c", "a.b.c-other", "a_b_c", "x.y", "x_y"];
    const want = ["a.b.c-other", "a_b.c", "x.y", "x_y"];
    await waitFor(async () => (await existing(b.port, names)).length >= want.length, 15_000, "the created topics in Metadata");
    expect(await existing(b.port, names)).toEqual(want);
  });

  it("concurrent CreateTopics of colliding names on separate connections create exactly one of them", async () => {
    const b = await broker();
    const variants = ["p.q.r", "p_q.r", "p.q_r", "p_q_r"];
    const names = Array.from({ length: 16 }, (_, i) => variants[i % variants.length]!);
    const outcomes = (await Promise.all(names.map((n) => createRaw(b.port, [n])))).map((r) => r[0]!);
    const created = outcomes.filter((o) => o.errorCode === ErrorCode.NONE);
    expect(created).toHaveLength(1);
    const winner = created[0]!.name;
    for (const o of outcomes) {
      if (o.errorCode === ErrorCode.NONE) continue;
      if (o.name === winner) expect(o.errorCode).toBe(ErrorCode.TOPIC_ALREADY_EXISTS);
      else expect(o).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, errorMessage: `Topic '${o.name}' collides with existing topic: ${winner}` });
    }
    await waitFor(async () => (await existing(b.port, variants)).length > 0, 15_000, "the created topic in Metadata");
    expect(await existing(b.port, variants)).toEqual([winner]);
  });

  it("after a restart the existing topics still block colliding names; deleting the topic frees the name", async () => {
    const first = await broker();
    const dir = first.dataDir;
    expect((await createRaw(first.port, ["metrics.cpu"]))[0]?.errorCode).toBe(ErrorCode.NONE);
    await first.stop();
    brokers.splice(brokers.indexOf(first), 1);
    const second = await broker(dir);
    expect((await createRaw(second.port, ["metrics_cpu"]))[0]).toMatchObject({
      errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION,
      errorMessage: "Topic 'metrics_cpu' collides with existing topic: metrics.cpu",
    });
    const c = await RawClient.connect(second.port);
    try {
      const del = await c.request(ApiKey.DeleteTopics, 3, { topicNames: ["metrics.cpu"], timeoutMs: 10_000 });
      expect(del.body.responses[0]?.errorCode).toBe(ErrorCode.NONE);
    } finally {
      c.close();
    }
    expect((await createRaw(second.port, ["metrics_cpu"]))[0]?.errorCode).toBe(ErrorCode.NONE);
  });
});
