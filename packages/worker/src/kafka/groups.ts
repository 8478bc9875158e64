/*
 * Consumer groups as the observer sees them, over the raw protocol: ListGroups
 * on every broker (each lists the groups it coordinates), then per coordinator,
 * in batches, ConsumerGroupDescribe (API 69) for groups of KIP-848's consumer
 * protocol (`group.protocol=consumer`) and DescribeGroups for classic groups —
 * as Kafka's admin client does: a group ConsumerGroupDescribe does not know
 * (GROUP_ID_NOT_FOUND: classic, or a cluster without the API) is described by
 * DescribeGroups, which shows a consumer-protocol group as Dead with no members. kafkajs' describeGroups sends one FindCoordinator
 * per group and merges the answers in quadratic time: at 5,000 groups every
 * observation cycle paid thousands of round trips for it.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import type { GroupAssignment, GroupDescription } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";
import { byCoordinator, COORDINATOR_MOVED } from "./offsets.ts";

const GROUPS_PER_DESCRIBE = 500;

export async function listGroups(conns: ClusterConnections): Promise<string[]> {
  const brokers = await conns.brokerAddresses();
  const lists = await Promise.all(
    [...brokers.values()].map(async (address) => {
      const conn = await conns.raw(address);
      const version = conn.pickVersion(ApiKey.ListGroups, 0, 4);
      const res = await conn.request(ApiKey.ListGroups, { statesFilter: [], typesFilter: [] }, version);
      // COORDINATOR_LOAD_IN_PROGRESS: that broker is still loading its groups; they show up next cycle.
      if (res.errorCode !== 0 && res.errorCode !== ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) throw new KafkaProtocolError(res.errorCode, `ListGroups on ${address}`);
      return res.groups.map((g) => g.groupId);
    }),
  );
  return [...new Set(lists.flat())];
}

export async function describeGroups(conns: ClusterConnections, groupIds: string[]): Promise<GroupDescription[]> {
  if (groupIds.length === 0) return [];
  const out: GroupDescription[] = [];
  const moved = await describeOnce(conns, groupIds, out, false);
  if (moved.length > 0) {
    conns.invalidateCoordinators(moved);
    await describeOnce(conns, moved, out, true);
  }
  return out;
}

async function describeOnce(conns: ClusterConnections, groupIds: string[], out: GroupDescription[], last: boolean): Promise<string[]> {
  const moved: string[] = [];
  await Promise.all(
    [...byCoordinator(await conns.groupCoordinators(groupIds))].map(async ([address, ids]) => {
      const conn = await conns.raw(address);
      const batches: Promise<void>[] = [];
      for (let i = 0; i < ids.length; i += GROUPS_PER_DESCRIBE) {
        const batch = ids.slice(i, i + GROUPS_PER_DESCRIBE);
        batches.push(
          (async () => {
            const classic = conn.supports(ApiKey.ConsumerGroupDescribe) ? await describeConsumerGroups(conn, batch, out, moved, last) : batch;
            if (classic.length > 0) await describeClassicGroups(conn, classic, out, moved, last);
          })(),
        );
      }
      await Promise.all(batches);
    }),
  );
  return moved;
}

type Conn = Awaited<ReturnType<ClusterConnections["raw"]>>;

/** ConsumerGroupDescribe; answers the ids that are no consumer group (for DescribeGroups). */
async function describeConsumerGroups(conn: Conn, ids: string[], out: GroupDescription[], moved: string[], last: boolean): Promise<string[]> {
  const version = conn.pickVersion(ApiKey.ConsumerGroupDescribe, 0, 0);
  const res = await conn.request(ApiKey.ConsumerGroupDescribe, { groupIds: ids, includeAuthorizedOperations: false }, version);
  const classic: string[] = [];
  for (const g of res.groups) {
    if (g.errorCode === 0) {
      out.push({
        groupId: g.groupId,
        state: g.groupState,
        members: g.members.length,
        protocolType: "consumer",
        groupType: "consumer",
        assignment: g.members.flatMap((m) =>
          m.assignment.topicPartitions.flatMap((t) => t.partitions.map((partition) => ({ topic: t.topicName, partition, memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost }))),
        ),
      });
    } else if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) classic.push(g.groupId);
    else if (COORDINATOR_MOVED.has(g.errorCode) && !last) moved.push(g.groupId);
    else throw new KafkaProtocolError(g.errorCode, `describing consumer group ${g.groupId}`);
  }
  return classic;
}

async function describeClassicGroups(conn: Conn, ids: string[], out: GroupDescription[], moved: string[], last: boolean): Promise<void> {
  const version = conn.pickVersion(ApiKey.DescribeGroups, 0, 5);
  const res = await conn.request(ApiKey.DescribeGroups, { groups: ids, includeAuthorizedOperations: false }, version);
  for (const g of res.groups) {
    if (g.errorCode === 0) {
      out.push({
        groupId: g.groupId,
        state: g.groupState,
        members: g.members.length,
        protocolType: g.protocolType,
        groupType: "classic",
        // Only consumer groups' assignments have a known shape (ConsumerProtocolAssignment).
        assignment:
          g.protocolType === "consumer"
            ? g.members.flatMap((m) => consumerProtocolAssignment(m.memberAssignment).map((a) => ({ ...a, memberId: m.memberId, clientId: m.clientId, clientHost: m.clientHost })))
            : [],
      });
    } else if (COORDINATOR_MOVED.has(g.errorCode) && !last) moved.push(g.groupId);
    else if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) out.push({ groupId: g.groupId, state: "Dead", members: 0, protocolType: "", groupType: "classic", assignment: [] });
    else throw new KafkaProtocolError(g.errorCode, `describing group ${g.groupId}`);
  }
}

/**
 * The partitions of a classic consumer's ConsumerProtocolAssignment (version
 * INT16, [topic STRING, [partition INT32]], user_data BYTES); nothing when the
 * bytes are not one (a client's own format).
 */
export function consumerProtocolAssignment(bytes: Buffer): Array<Pick<GroupAssignment, "topic" | "partition">> {
  const out: Array<Pick<GroupAssignment, "topic" | "partition">> = [];
  try {
    let pos = 2;
    const topics = bytes.readInt32BE(pos);
    pos += 4;
    if (topics < 0 || topics > bytes.length) return [];
    for (let i = 0; i < topics; i++) {
      const len = bytes.readInt16BE(pos);
      if (len < 0 || pos + 2 + len > bytes.length) return [];
      const topic = bytes.toString("utf8", pos + 2, pos + 2 + len);
      pos += 2 + len;
      const n = bytes.readInt32BE(pos);
      pos += 4;
      if (n < 0 || pos + 4 * n > bytes.length) return [];
      for (let j = 0; j < n; j++) out.push({ topic, partition: bytes.readInt32BE(pos + 4 * j) });
      pos += 4 * n;
    }
  } catch {
    return [];
  }
  return out;
}
