/*
 * Broker-level configs the worker reads: `super.users`, so the catalog can
 * reserve those principals (an account named after a super user would be one).
 * DescribeConfigs on a BROKER resource returns static broker configs too
 * (source STATIC_BROKER_CONFIG); a principal without DESCRIBE_CONFIGS on the
 * cluster gets CLUSTER_AUTHORIZATION_FAILED, which we report as "unknown".
 */
import type { ClusterConnections } from "./connections.ts";
import { ConfigResource, describeConfigs } from "./describe-configs.ts";

/**
 * Whether the cluster's brokers offer tiered storage (KIP-405):
 * `remote.log.storage.system.enable` of every broker, each asked of itself.
 * True only when every broker that answers says true; false when one says
 * false (a topic with remote.storage.enable=true is refused there); null when
 * none will say.
 */
export async function tieredStorageEnabled(conns: ClusterConnections): Promise<boolean | null> {
  const brokers = await conns.brokerAddresses();
  if (brokers.size === 0) return null;
  const res = await describeConfigs(conns, [...brokers.keys()].map((id) => ({ type: ConfigResource.BROKER, name: String(id), configNames: ["remote.log.storage.system.enable"] })));
  const answers = res.filter((r) => r.errorCode === 0).map((r) => r.configs.find((e) => e.name === "remote.log.storage.system.enable")?.value ?? null);
  if (answers.length === 0 || answers.every((v) => v === null)) return null;
  return answers.every((v) => v === "true");
}

/** `super.users` of every broker, as principals (`User:name`); null when the cluster will not say. */
export async function superUsers(conns: ClusterConnections): Promise<string[] | null> {
  const brokers = await conns.brokerAddresses();
  if (brokers.size === 0) return null;
  const res = await describeConfigs(conns, [...brokers.keys()].map((id) => ({ type: ConfigResource.BROKER, name: String(id), configNames: ["super.users"] })));
  const out = new Set<string>();
  let answered = false;
  for (const r of res) {
    if (r.errorCode !== 0) continue;
    answered = true;
    for (const e of r.configs) {
      if (e.name !== "super.users" || !e.value) continue;
      for (const p of e.value.split(";").map((s) => s.trim()).filter(Boolean)) out.add(p);
    }
  }
  return answered ? [...out] : null;
}
