/*
 * Consumer groups as the observer sees them, over the raw protocol: ListGroups
 * on every broker (each lists the groups it coordinates), DescribeGroups per
 * coordinator in batches. kafkajs' describeGroups sends one FindCoordinator
 * per group and merges the answers in quadratic time: at 5,000 groups every
 * observation cycle paid thousands of round trips for it.
 */
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import type { GroupDescription } from "./cluster.ts";
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
      const version = conn.pickVersion(ApiKey.DescribeGroups, 0, 5);
      const batches: Promise<void>[] = [];
      for (let i = 0; i < ids.length; i += GROUPS_PER_DESCRIBE) {
        batches.push(
          conn.request(ApiKey.DescribeGroups, { groups: ids.slice(i, i + GROUPS_PER_DESCRIBE), includeAuthorizedOperations: false }, version).then((res) => {
            for (const g of res.groups) {
              if (g.errorCode === 0) out.push({ groupId: g.groupId, state: g.groupState, members: g.members.length, protocolType: g.protocolType });
              else if (COORDINATOR_MOVED.has(g.errorCode) && !last) moved.push(g.groupId);
              else if (g.errorCode === ErrorCode.GROUP_ID_NOT_FOUND) out.push({ groupId: g.groupId, state: "Dead", members: 0, protocolType: "" });
              else throw new KafkaProtocolError(g.errorCode, `describing group ${g.groupId}`);
            }
          }),
        );
      }
      await Promise.all(batches);
    }),
  );
  return moved;
}
