/*
 * Consumer groups as the observer sees them, through the kafkajs admin client.
 */
import type { GroupDescription } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

export async function listGroups(conns: ClusterConnections): Promise<string[]> {
  const admin = await conns.admin();
  const { groups } = await admin.listGroups();
  return groups.map((g) => g.groupId);
}

export async function describeGroups(conns: ClusterConnections, groupIds: string[]): Promise<GroupDescription[]> {
  if (groupIds.length === 0) return [];
  const admin = await conns.admin();
  const { groups } = await admin.describeGroups(groupIds);
  return groups.map((g) => ({ groupId: g.groupId, state: g.state, members: g.members.length, protocolType: g.protocolType }));
}
