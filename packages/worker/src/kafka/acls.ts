/*
 * ACLs through the kafkajs admin client, translated between the worker's
 * AclBinding (Kafka's names as strings) and kafkajs' numeric enums.
 */
// kafkajs is CommonJS: under Node's own ESM loader only its default export is
// reliable (the enums are not detected as named exports).
import kafkajs, { type AclEntry, type AclFilter } from "kafkajs";
import { KafkaProtocolError } from "@kappa/kafka-protocol/client";
import type { AclBinding, AclOperation, AclResourcePattern } from "./cluster.ts";
import type { ClusterConnections } from "./connections.ts";

const { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes } = kafkajs;
type AclResourceTypes = kafkajs.AclResourceTypes;
type AclOperationTypes = kafkajs.AclOperationTypes;

const RESOURCE_TYPES: Record<AclBinding["resourceType"], AclResourceTypes> = {
  TOPIC: AclResourceTypes.TOPIC,
  GROUP: AclResourceTypes.GROUP,
  CLUSTER: AclResourceTypes.CLUSTER,
  TRANSACTIONAL_ID: AclResourceTypes.TRANSACTIONAL_ID,
};
const OPERATIONS: Record<AclOperation, AclOperationTypes> = {
  ALL: AclOperationTypes.ALL,
  READ: AclOperationTypes.READ,
  WRITE: AclOperationTypes.WRITE,
  CREATE: AclOperationTypes.CREATE,
  DELETE: AclOperationTypes.DELETE,
  ALTER: AclOperationTypes.ALTER,
  DESCRIBE: AclOperationTypes.DESCRIBE,
  CLUSTER_ACTION: AclOperationTypes.CLUSTER_ACTION,
  DESCRIBE_CONFIGS: AclOperationTypes.DESCRIBE_CONFIGS,
  ALTER_CONFIGS: AclOperationTypes.ALTER_CONFIGS,
  IDEMPOTENT_WRITE: AclOperationTypes.IDEMPOTENT_WRITE,
};

function reverse<K extends string, V extends number>(map: Record<K, V>): Map<number, K> {
  return new Map(Object.entries(map).map(([k, v]) => [v as number, k as K]));
}
const RESOURCE_NAMES = reverse(RESOURCE_TYPES);
const OPERATION_NAMES = reverse(OPERATIONS);

function toKafkaJsAcl(b: AclBinding): AclEntry {
  return {
    resourceType: RESOURCE_TYPES[b.resourceType],
    resourceName: b.resourceName,
    resourcePatternType: b.patternType === "LITERAL" ? ResourcePatternTypes.LITERAL : ResourcePatternTypes.PREFIXED,
    principal: b.principal,
    host: b.host,
    operation: OPERATIONS[b.operation],
    permissionType: b.permission === "ALLOW" ? AclPermissionTypes.ALLOW : AclPermissionTypes.DENY,
  };
}

export async function describeAcls(conns: ClusterConnections, principals?: string[]): Promise<AclBinding[]> {
  return describeFiltered(
    conns,
    (principals ?? [undefined]).map((principal) => ({
      resourceType: AclResourceTypes.ANY,
      resourcePatternType: ResourcePatternTypes.ANY,
      principal,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    })),
  );
}

/**
 * Every binding (of any principal) on exactly these resource patterns: one
 * DescribeAcls filter per pattern, which a broker answers from the bindings of
 * that resource alone. A pattern without a pattern type matches both LITERAL
 * and PREFIXED bindings of that exact name (Kafka's ANY, not MATCH).
 */
export async function describeAclsOn(conns: ClusterConnections, patterns: readonly AclResourcePattern[]): Promise<AclBinding[]> {
  if (patterns.length === 0) return [];
  return describeFiltered(
    conns,
    patterns.map((p) => ({
      resourceType: RESOURCE_TYPES[p.resourceType],
      resourceName: p.resourceName,
      resourcePatternType: p.patternType === undefined ? ResourcePatternTypes.ANY : p.patternType === "LITERAL" ? ResourcePatternTypes.LITERAL : ResourcePatternTypes.PREFIXED,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    })),
  );
}

async function describeFiltered(conns: ClusterConnections, filters: AclFilter[]): Promise<AclBinding[]> {
  const admin = await conns.admin();
  const out: AclBinding[] = [];
  const responses = await Promise.all(filters.map((f) => admin.describeAcls(f)));
  for (const res of responses) {
    // kafkajs resolves with `{ resources }` only; a broker error is thrown, not returned.
    for (const r of res.resources) {
      const resourceType = RESOURCE_NAMES.get(r.resourceType);
      const patternType = r.resourcePatternType === ResourcePatternTypes.LITERAL ? "LITERAL" : r.resourcePatternType === ResourcePatternTypes.PREFIXED ? "PREFIXED" : null;
      if (!resourceType || !patternType) continue; // delegation tokens, users: nothing the catalog manages
      for (const acl of r.acls) {
        const operation = OPERATION_NAMES.get(acl.operation);
        if (!operation) continue;
        out.push({
          resourceType,
          resourceName: r.resourceName,
          patternType,
          principal: acl.principal,
          host: acl.host,
          operation,
          permission: acl.permissionType === AclPermissionTypes.DENY ? "DENY" : "ALLOW",
        });
      }
    }
  }
  return out;
}

export async function createAcls(conns: ClusterConnections, bindings: AclBinding[]): Promise<void> {
  if (bindings.length === 0) return;
  const admin = await conns.admin();
  await admin.createAcls({ acl: bindings.map(toKafkaJsAcl) });
}

export async function deleteAcls(conns: ClusterConnections, bindings: AclBinding[]): Promise<void> {
  if (bindings.length === 0) return;
  const admin = await conns.admin();
  // A filter with every field set matches exactly one binding (no ANY/MATCH widening).
  const res = await admin.deleteAcls({ filters: bindings.map(toKafkaJsAcl) });
  for (const f of res.filterResponses) {
    if (f.errorCode !== 0) throw new KafkaProtocolError(f.errorCode, f.errorMessage ?? "DeleteAcls failed");
  }
}
