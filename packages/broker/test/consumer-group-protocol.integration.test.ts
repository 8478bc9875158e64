// KIP-848's consumer group protocol (`group.protocol=consumer`): the raw
// ConsumerGroupHeartbeat / ConsumerGroupDescribe exchanges (member epochs,
// revocation before assignment, static members, errors), OffsetCommit v9 with
// member epochs, ListGroups v5 group types and DescribeGroups on a consumer group;
// then Apache Kafka 4.1's own Java consumer and kafka-consumer-groups against the
// broker. Kafka behaviour throughout: `npm run test:oracle` runs it against Apache Kafka.
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ensureApacheKafka, findJava } from "@kappa/engines";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { createTopicsReady, kafkaClient, RawClient, startTestBroker, uniqueName, waitFor, type TestBroker } from "./helpers.ts";

const HEARTBEAT_MS = 1000;
let broker: TestBroker;
const clients: RawClient[] = [];
const procs: ChildProcess[] = [];

beforeAll(async () => {
  broker = await startTestBroker({ "group.consumer.heartbeat.interval.ms": HEARTBEAT_MS });
});
afterAll(async () => {
  for (const c of clients) c.close();
  for (const p of procs) if (p.exitCode === null && p.signalCode === null) p.kill("SIGKILL");
  await broker.cleanup();
});

async function raw(): Promise<RawClient> {
  const c = await RawClient.connect(broker.port);
  clients.push(c);
  return c;
}

/** A member id as Kafka 4.x clients choose theirs (KIP-1082): a random Uuid in its text form. */
function memberId(): string {
  return randomBytes(16).toString("base64url");
}

async function createTopic(name: string, partitions: number): Promise<string> {
  const admin = kafkaClient(broker.bootstrap).admin();
  await admin.connect();
  try {
    await createTopicsReady(admin, { topics: [{ topic: name, numPartitions: partitions }] });
  } finally {
    await admin.disconnect();
  }
  const c = await raw();
  const r = await c.request(ApiKey.Metadata, 12, { topics: [{ name }], allowAutoTopicCreation: false, includeTopicAuthorizedOperations: false });
  const id = r.body.topics[0]!.topicId;
  expect(id).not.toBe("AAAAAAAAAAAAAAAAAAAAAA");
  return id;
}

type Owned = Array<{ topicId: string; partitions: number[] }>;
function count(a: Owned | null | undefined): number {
  return (a ?? []).reduce((n, t) => n + t.partitions.length, 0);
}
function keys(a: Owned | null | undefined): string[] {
  return (a ?? []).flatMap((t) => t.partitions.map((p) => `${t.topicId}:${p}`)).sort();
}

interface Hb {
  memberId: string;
  memberEpoch: number;
  instanceId?: string | null;
  rebalanceTimeoutMs?: number;
  subscribedTopicNames?: string[] | null;
  subscribedTopicRegex?: string | null;
  serverAssignor?: string | null;
  topicPartitions?: Owned | null;
}
/** Kafka's coordinator is ready once its offsets topic is (created by the first FindCoordinator); the embedded broker's at once. */
const NOT_READY = new Set<number>([ErrorCode.COORDINATOR_LOAD_IN_PROGRESS, ErrorCode.COORDINATOR_NOT_AVAILABLE, ErrorCode.NOT_COORDINATOR]);

async function heartbeat(c: RawClient, groupId: string, h: Hb) {
  for (let attempt = 0; ; attempt++) {
    const body = await heartbeatOnce(c, groupId, h);
    if (!NOT_READY.has(body.errorCode) || attempt >= 100) return body;
    await c.request(ApiKey.FindCoordinator, 2, { key: groupId, keyType: 0 });
    await new Promise((resolve) => setTimeout(resolve, 300));
  }
}

async function heartbeatOnce(c: RawClient, groupId: string, h: Hb) {
  const r = await c.request(ApiKey.ConsumerGroupHeartbeat, 1, {
    groupId,
    memberId: h.memberId,
    memberEpoch: h.memberEpoch,
    instanceId: h.instanceId ?? null,
    rackId: null,
    rebalanceTimeoutMs: h.rebalanceTimeoutMs ?? (h.memberEpoch === 0 ? 30000 : -1),
    subscribedTopicNames: h.subscribedTopicNames === undefined ? null : h.subscribedTopicNames,
    subscribedTopicRegex: h.subscribedTopicRegex ?? null,
    serverAssignor: h.serverAssignor ?? null,
    topicPartitions: h.topicPartitions === undefined ? (h.memberEpoch === 0 ? [] : null) : h.topicPartitions,
  });
  return r.body;
}

/**
 * Joins (epoch 0) and heartbeats as a client does until the assignment holds `partitions`
 * partitions (Kafka's coordinator may see a just-created topic a moment after its
 * creation answered, and then moves to a new group epoch); acknowledges it.
 */
async function joinAssigned(c: RawClient, groupId: string, h: Hb, partitions: number) {
  let r = await heartbeat(c, groupId, { ...h, memberEpoch: 0 });
  const joined = r;
  expect(r.errorCode).toBe(ErrorCode.NONE);
  let assignment = r.assignment?.topicPartitions ?? [];
  await waitFor(
    async () => {
      if (count(assignment) === partitions) return true;
      r = await heartbeat(c, groupId, { memberId: h.memberId, memberEpoch: r.memberEpoch });
      if (r.assignment) assignment = r.assignment.topicPartitions;
      return false;
    },
    15_000,
    `${partitions} partitions assigned`,
  );
  const acked = await heartbeat(c, groupId, { memberId: h.memberId, memberEpoch: r.memberEpoch, topicPartitions: assignment });
  expect(acked.errorCode).toBe(ErrorCode.NONE);
  return { joined, memberEpoch: acked.memberEpoch, assignment };
}

describe("ConsumerGroupHeartbeat and ConsumerGroupDescribe (raw protocol)", () => {
  it("assigns on the server, revokes before it assigns, and moves the epochs as KIP-848 says", async () => {
    const topic = uniqueName("kip848-raw");
    const topicId = await createTopic(topic, 4);
    const group = uniqueName("g");
    const c = await raw();
    const a = memberId();
    const b = memberId();

    const aStable = await joinAssigned(c, group, { memberId: a, memberEpoch: 0, subscribedTopicNames: [topic] }, 4);
    // Kafka 4.x members choose their member id (KIP-1082); the epoch starts at the group's.
    expect(aStable.joined.memberId).toBe(a);
    expect(aStable.joined.memberEpoch).toBeGreaterThanOrEqual(1);
    expect(aStable.joined.heartbeatIntervalMs).toBe(HEARTBEAT_MS);
    expect(keys(aStable.assignment)).toEqual([0, 1, 2, 3].map((p) => `${topicId}:${p}`));
    const e = aStable.memberEpoch;

    // B joins: the group epoch goes up by one. Its target partitions are still A's, so it gets the epoch but nothing yet.
    const b1 = await heartbeat(c, group, { memberId: b, memberEpoch: 0, subscribedTopicNames: [topic] });
    expect(b1.errorCode).toBe(ErrorCode.NONE);
    expect(b1.memberEpoch).toBe(e + 1);
    expect(count(b1.assignment?.topicPartitions)).toBe(0);

    // A must first give up two partitions: it keeps its epoch until it says it no longer owns them.
    const a2 = await heartbeat(c, group, { memberId: a, memberEpoch: e });
    expect(a2.memberEpoch).toBe(e);
    expect(count(a2.assignment?.topicPartitions)).toBe(2);
    const kept = a2.assignment!.topicPartitions;
    const stillOwned = await heartbeat(c, group, { memberId: a, memberEpoch: e, topicPartitions: [{ topicId, partitions: [0, 1, 2, 3] }] });
    expect(stillOwned.memberEpoch).toBe(e);

    // B still gets nothing while A owns them.
    const b2 = await heartbeat(c, group, { memberId: b, memberEpoch: e + 1 });
    expect(b2.errorCode).toBe(ErrorCode.NONE);
    expect(count(b2.assignment?.topicPartitions)).toBe(0);

    const describe1 = await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false });
    const g1 = describe1.body.groups[0]!;
    expect(g1.errorCode).toBe(ErrorCode.NONE);
    expect(g1.groupState).toBe("Reconciling");
    expect(g1.groupEpoch).toBe(e + 1);
    expect(g1.assignmentEpoch).toBe(e + 1);

    // A revokes: the new epoch. B then receives the two A gave up.
    const a3 = await heartbeat(c, group, { memberId: a, memberEpoch: e, topicPartitions: kept });
    expect(a3.memberEpoch).toBe(e + 1);
    const b3 = await heartbeat(c, group, { memberId: b, memberEpoch: e + 1 });
    expect(count(b3.assignment?.topicPartitions)).toBe(2);
    expect([...keys(kept), ...keys(b3.assignment?.topicPartitions)].sort()).toEqual([0, 1, 2, 3].map((p) => `${topicId}:${p}`));
    await heartbeat(c, group, { memberId: b, memberEpoch: e + 1, topicPartitions: b3.assignment!.topicPartitions });

    const described = (await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false })).body.groups[0]!;
    expect(described.groupState).toBe("Stable");
    expect(described.assignorName).toBe("uniform");
    expect(described.members.map((m) => m.memberId).sort()).toEqual([a, b].sort());
    for (const m of described.members) {
      expect(m.memberEpoch).toBe(e + 1);
      expect(m.subscribedTopicNames).toEqual([topic]);
      expect(m.assignment.topicPartitions.map((t) => ({ topicName: t.topicName, n: t.partitions.length }))).toEqual([{ topicName: topic, n: 2 }]);
      expect(m.targetAssignment).toEqual(m.assignment);
    }

    // Epochs out of line: above the member's is fenced; an unknown member is unknown.
    expect((await heartbeat(c, group, { memberId: a, memberEpoch: e + 5 })).errorCode).toBe(ErrorCode.FENCED_MEMBER_EPOCH);
    expect((await heartbeat(c, group, { memberId: memberId(), memberEpoch: e + 1 })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);

    // The classic APIs see a consumer group as Kafka shows it: DescribeGroups (v0-5) Dead and empty,
    // ListGroups v5 with its type; ConsumerGroupDescribe of an unknown group is GROUP_ID_NOT_FOUND.
    const classic = (await c.request(ApiKey.DescribeGroups, 5, { groups: [group], includeAuthorizedOperations: false })).body.groups[0]!;
    expect({ errorCode: classic.errorCode, state: classic.groupState, members: classic.members.length }).toEqual({ errorCode: ErrorCode.NONE, state: "Dead", members: 0 });
    const listed = (await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ["consumer"] })).body.groups.find((g) => g.groupId === group);
    expect(listed).toEqual({ groupId: group, protocolType: "consumer", groupState: "Stable", groupType: "consumer" });
    expect((await c.request(ApiKey.ListGroups, 5, { statesFilter: [], typesFilter: ["classic"] })).body.groups.some((g) => g.groupId === group)).toBe(false);
    const unknown = (await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [uniqueName("nope")], includeAuthorizedOperations: false })).body.groups[0]!;
    expect(unknown.errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);

    // OffsetCommit v9 carries the member epoch: any other than the member's is stale (Kafka 4.1), the current one commits.
    const commit = async (epoch: number, member: string, version = 9) =>
      (
        await c.request(ApiKey.OffsetCommit, version, {
          groupId: group,
          generationIdOrMemberEpoch: epoch,
          memberId: member,
          groupInstanceId: null,
          topics: [{ name: topic, partitions: [{ partitionIndex: 0, committedOffset: 5n, committedLeaderEpoch: -1, committedMetadata: "" }] }],
        })
      ).body.topics[0]!.partitions[0]!.errorCode;
    expect(await commit(e, a)).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect(await commit(e + 2, a)).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect(await commit(e + 1, memberId())).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(await commit(-1, "")).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    // A member of the consumer protocol must commit with v9 or later.
    expect(await commit(e + 1, a, 8)).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(await commit(e + 1, a)).toBe(ErrorCode.NONE);
    // OffsetFetch v9 carries them too (the new consumer fetches its offsets with them): the member's current
    // epoch reads the commit, another epoch is stale, an unknown member is unknown; none given (an admin) reads.
    const fetchV9 = async (member: string | null, epoch: number) =>
      (await c.request(ApiKey.OffsetFetch, 9, { groups: [{ groupId: group, memberId: member, memberEpoch: epoch, topics: [{ name: topic, partitionIndexes: [0] }] }], requireStable: true })).body.groups[0]!;
    const current = await fetchV9(a, e + 1);
    expect({ errorCode: current.errorCode, offset: current.topics[0]?.partitions[0]?.committedOffset }).toEqual({ errorCode: ErrorCode.NONE, offset: 5n });
    expect((await fetchV9(a, e)).errorCode).toBe(ErrorCode.STALE_MEMBER_EPOCH);
    expect((await fetchV9(memberId(), e + 1)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    const admin = await fetchV9(null, -1);
    expect({ errorCode: admin.errorCode, offset: admin.topics[0]?.partitions[0]?.committedOffset }).toEqual({ errorCode: ErrorCode.NONE, offset: 5n });

    // A leaves (epoch −1): B gets everything at the next epoch.
    const left = await heartbeat(c, group, { memberId: a, memberEpoch: -1 });
    expect(left.errorCode).toBe(ErrorCode.NONE);
    expect(left.memberEpoch).toBe(-1);
    const b4 = await heartbeat(c, group, { memberId: b, memberEpoch: e + 1 });
    expect(b4.memberEpoch).toBe(e + 2);
    expect(count(b4.assignment?.topicPartitions)).toBe(4);
    await heartbeat(c, group, { memberId: b, memberEpoch: -1 });
  });

  it("refuses malformed heartbeats with Kafka's errors", async () => {
    const topic = uniqueName("kip848-bad");
    await createTopic(topic, 1);
    const c = await raw();
    const group = uniqueName("g");
    const noSubscription = await heartbeat(c, group, { memberId: memberId(), memberEpoch: 0 });
    expect(noSubscription.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect(noSubscription.errorMessage).toBe("Either SubscribedTopicNames or SubscribedTopicRegex must be non-null when (re-)joining.");
    const owned = await heartbeat(c, group, { memberId: memberId(), memberEpoch: 0, subscribedTopicNames: [topic], topicPartitions: [{ topicId: "AAAAAAAAAAAAAAAAAAAAAA", partitions: [0] }] });
    expect(owned.errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat(c, group, { memberId: "", memberEpoch: 0, subscribedTopicNames: [topic] })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat(c, group, { memberId: memberId(), memberEpoch: -3 })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat(c, "", { memberId: memberId(), memberEpoch: 0, subscribedTopicNames: [topic] })).errorCode).toBe(ErrorCode.INVALID_REQUEST);
    expect((await heartbeat(c, group, { memberId: memberId(), memberEpoch: 0, subscribedTopicNames: [topic], serverAssignor: "sticky" })).errorCode).toBe(ErrorCode.UNSUPPORTED_ASSIGNOR);
    // The range assignor is Kafka's other one.
    const ranged = await heartbeat(c, group, { memberId: memberId(), memberEpoch: 0, subscribedTopicNames: [topic], serverAssignor: "range" });
    expect(ranged.errorCode).toBe(ErrorCode.NONE);
    expect((await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false })).body.groups[0]!.assignorName).toBe("range");
    await heartbeat(c, group, { memberId: ranged.memberId!, memberEpoch: -1 });
  });

  it("subscribes by regex: the topics it matches in full, an invalid one refused", async () => {
    const prefix = uniqueName("kip848-rx");
    const one = await createTopic(`${prefix}-one`, 1);
    const two = await createTopic(`${prefix}-two`, 2);
    await createTopic(`${prefix}x-other`, 1);
    const c = await raw();
    const group = uniqueName("g");
    const m = memberId();
    const joined = await joinAssigned(c, group, { memberId: m, memberEpoch: 0, subscribedTopicRegex: `${prefix}-.*` }, 3);
    expect(keys(joined.assignment)).toEqual([`${one}:0`, `${two}:0`, `${two}:1`].sort());
    const bad = await heartbeat(c, group, { memberId: memberId(), memberEpoch: 0, subscribedTopicRegex: "(" });
    expect(bad.errorCode).toBe(ErrorCode.INVALID_REGULAR_EXPRESSION);
    await heartbeat(c, group, { memberId: m, memberEpoch: -1 });
  });

  it("keeps a static member's assignment for its instance id while it restarts", async () => {
    const topic = uniqueName("kip848-static");
    const topicId = await createTopic(topic, 2);
    const c = await raw();
    const group = uniqueName("g");
    const first = memberId();
    const j = await joinAssigned(c, group, { memberId: first, memberEpoch: 0, instanceId: "instance-1", subscribedTopicNames: [topic] }, 2);
    expect(keys(j.assignment)).toEqual([`${topicId}:0`, `${topicId}:1`]);

    // Another member id cannot take the instance id while its holder is there.
    const second = memberId();
    expect((await heartbeat(c, group, { memberId: second, memberEpoch: 0, instanceId: "instance-1", subscribedTopicNames: [topic] })).errorCode).toBe(ErrorCode.UNRELEASED_INSTANCE_ID);

    // The holder leaves temporarily (−2); the restarted instance gets the same epoch and partitions, no new group epoch.
    const away = await heartbeat(c, group, { memberId: first, memberEpoch: -2, instanceId: "instance-1" });
    expect(away.memberEpoch).toBe(-2);
    const back = await heartbeat(c, group, { memberId: second, memberEpoch: 0, instanceId: "instance-1", subscribedTopicNames: [topic] });
    expect(back.errorCode).toBe(ErrorCode.NONE);
    expect(back.memberEpoch).toBe(j.memberEpoch);
    expect(keys(back.assignment?.topicPartitions)).toEqual([`${topicId}:0`, `${topicId}:1`]);
    const d = (await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false })).body.groups[0]!;
    expect(d.groupEpoch).toBe(j.memberEpoch);
    expect(d.members.map((m) => ({ memberId: m.memberId, instanceId: m.instanceId }))).toEqual([{ memberId: second, instanceId: "instance-1" }]);
    // The old member id is gone.
    expect((await heartbeat(c, group, { memberId: first, memberEpoch: j.memberEpoch })).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    await heartbeat(c, group, { memberId: second, memberEpoch: -1 });
  });
});

// ---- Apache Kafka 4.1's Java consumer and tools ----------------------------------

let classpath: string;
let java: string;
/** Short-lived tools: a small heap, and the quick compiler only (starts faster on a loaded machine). */
const JVM = ["-Xmx256m", "-XX:TieredStopAtLevel=1"];

async function kafkaTool(mainClass: string, args: string[]): Promise<string> {
  const child = spawn(java, [...JVM, "-cp", classpath, mainClass, ...args], { stdio: ["ignore", "pipe", "pipe"] });
  procs.push(child);
  let text = "";
  child.stdout.on("data", (d: Buffer) => (text += d.toString()));
  child.stderr.on("data", (d: Buffer) => (text += d.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("close", resolve));
  if (code !== 0) throw new Error(`${mainClass} ${args.join(" ")} exited ${code}: ${text}`);
  return text;
}

interface JavaConsumer {
  child: ChildProcess;
  /** "partition:value" lines received. */
  records: string[];
}

function startConsoleConsumer(topic: string, group: string): JavaConsumer {
  const child = spawn(
    java,
    [
      ...JVM,
      "-cp",
      classpath,
      "org.apache.kafka.tools.consumer.ConsoleConsumer",
      "--bootstrap-server",
      broker.bootstrap,
      "--topic",
      topic,
      "--group",
      group,
      "--from-beginning",
      "--consumer-property",
      "group.protocol=consumer",
      "--property",
      "print.partition=true",
      "--property",
      "print.value=true",
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  procs.push(child);
  const consumer: JavaConsumer = { child, records: [] };
  let partial = "";
  child.stdout.on("data", (d: Buffer) => {
    const lines = (partial + d.toString()).split("\n");
    partial = lines.pop()!;
    for (const l of lines) {
      const m = /Partition:(\d+)\s+(\S+)/.exec(l);
      if (m) consumer.records.push(`${m[1]}:${m[2]}`);
    }
  });
  let errors = "";
  child.stderr.on("data", (d: Buffer) => (errors = (errors + d.toString()).slice(-4000)));
  child.on("close", (code) => {
    if (code !== 0 && code !== 143 && child.signalCode === null) process.stderr.write(`console consumer exited ${code}: ${errors}\n`);
  });
  return consumer;
}

async function produce(topic: string, partitions: number, from: number, n: number): Promise<void> {
  const producer = kafkaClient(broker.bootstrap).producer();
  await producer.connect();
  try {
    await producer.send({ topic, acks: -1, messages: Array.from({ length: n }, (_, i) => ({ partition: (from + i) % partitions, value: `r${from + i}` })) });
  } finally {
    await producer.disconnect();
  }
}

let describer: RawClient | undefined;
async function describeMembers(group: string): Promise<Array<{ memberEpoch: number; partitions: string[] }>> {
  const c = (describer ??= await raw());
  const d = (await c.request(ApiKey.ConsumerGroupDescribe, 0, { groupIds: [group], includeAuthorizedOperations: false })).body.groups[0]!;
  if (d.errorCode !== ErrorCode.NONE || d.groupState !== "Stable") return [];
  return d.members.map((m) => ({ memberEpoch: m.memberEpoch, partitions: m.assignment.topicPartitions.flatMap((t) => t.partitions.map((p) => `${t.topicName}:${p}`)) }));
}

describe("Apache Kafka 4.1's Java consumer with group.protocol=consumer", () => {
  beforeAll(async () => {
    java = findJava();
    classpath = path.join(await ensureApacheKafka(), "*");
  }, 300_000);

  it("shares a topic's partitions between two members, every record once, and hands them over when one leaves; kafka-consumer-groups describes the group", async () => {
    const topic = uniqueName("kip848-java");
    const group = uniqueName("kip848-java-group");
    await createTopic(topic, 4);
    const one = startConsoleConsumer(topic, group);
    const two = startConsoleConsumer(topic, group);

    // Both members in, each with two of the four partitions.
    await waitFor(
      async () => {
        const members = await describeMembers(group);
        return members.length === 2 && members.every((m) => m.partitions.length === 2);
      },
      120_000,
      "two Java consumers sharing four partitions",
    );
    await produce(topic, 4, 0, 40);
    await waitFor(() => one.records.length + two.records.length >= 40, 60_000, "40 records consumed");
    const all = [...one.records, ...two.records];
    expect(new Set(all).size).toBe(all.length);
    expect(all.map((r) => r.split(":")[1]).sort()).toEqual(Array.from({ length: 40 }, (_, i) => `r${i}`).sort());
    // Each member read only its own partitions: two each.
    expect(new Set(one.records.map((r) => r.split(":")[0])).size).toBe(2);
    expect(new Set(two.records.map((r) => r.split(":")[0])).size).toBe(2);

    // kafka-consumer-groups --describe --members --verbose: both members, their epochs and partitions.
    const described = await kafkaTool("org.apache.kafka.tools.consumer.group.ConsumerGroupCommand", ["--bootstrap-server", broker.bootstrap, "--describe", "--group", group, "--members", "--verbose"]);
    const rows = described.split("\n").filter((l) => l.startsWith(`${group} `));
    expect(rows).toHaveLength(2);
    for (const row of rows) expect(row).toMatch(new RegExp(`\\s2\\s+\\d+\\s+${topic}:\\d,\\d\\s`));
    // One leaves (a clean shutdown: it commits and sends its leave heartbeat); the other takes all four.
    one.child.kill("SIGTERM");
    await new Promise((resolve) => one.child.on("close", resolve));
    await waitFor(
      async () => {
        const members = await describeMembers(group);
        return members.length === 1 && members[0]!.partitions.length === 4;
      },
      60_000,
      "the remaining consumer holding all four partitions",
    );
    const before = two.records.length;
    await produce(topic, 4, 40, 40);
    await waitFor(() => two.records.length >= before + 40, 60_000, "the remaining consumer reading the next 40 records");
    const after = [...one.records, ...two.records];
    expect(new Set(after).size).toBe(after.length);
    expect(after.map((r) => r.split(":")[1]).sort()).toEqual(Array.from({ length: 80 }, (_, i) => `r${i}`).sort());
    expect(new Set(two.records.slice(before).map((r) => r.split(":")[0]))).toEqual(new Set(["0", "1", "2", "3"]));

    two.child.kill("SIGTERM");
    await new Promise((resolve) => two.child.on("close", resolve));
  }, 360_000);
});
