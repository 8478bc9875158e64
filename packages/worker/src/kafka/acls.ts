/*
 * ACLs over the raw protocol (DescribeAcls, CreateAcls, DeleteAcls v1+, any
 * broker, as Kafka's AdminClient sends them), translated between the worker's
 * AclBinding (Kafka's names as strings) and the protocol's numeric codes
 * (kafkajs' enums carry the same numbers). Not through kafkajs' admin: it
 * refreshes the metadata of its "target topics" before each of these calls,
 * and with none it asks for every topic (its encoder sends an empty list as
 * null) — at 10,000 topics × 6 partitions a ~2 MB Metadata answer per ACL
 * call, most of a no-op reconcile's and a grant batch's time.
 */
// kafkajs is CommonJS: under Node's own ESM loader only its default export is
// reliable (the enums are not detected as named exports).
import kafkajs from "kafkajs";
import { ApiKey, type DeleteAclsRequestFilter } from "@kappa/kafka-protocol";
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
/** The codes answers carry, as plain numbers. */
const LITERAL: number = ResourcePatternTypes.LITERAL;
const PREFIXED: number = ResourcePatternTypes.PREFIXED;
const DENY: number = AclPermissionTypes.DENY;
const OPERATION_NAMES = reverse(OPERATIONS);

/** A DescribeAcls / DeleteAcls filter (the two requests' filters have the same fields); null name/principal/host = any. */
type AclFilter = DeleteAclsRequestFilter;

const patternCode = (b: Pick<AclBinding, "patternType">) => (b.patternType === "LITERAL" ? ResourcePatternTypes.LITERAL : ResourcePatternTypes.PREFIXED);
const permissionCode = (b: Pick<AclBinding, "permission">) => (b.permission === "ALLOW" ? AclPermissionTypes.ALLOW : AclPermissionTypes.DENY);

/** A filter with every field set: matches exactly this binding (no ANY/MATCH widening). */
function exactFilter(b: AclBinding): AclFilter {
  return {
    resourceTypeFilter: RESOURCE_TYPES[b.resourceType],
    resourceNameFilter: b.resourceName,
    patternTypeFilter: patternCode(b),
    principalFilter: b.principal,
    hostFilter: b.host,
    operation: OPERATIONS[b.operation],
    permissionType: permissionCode(b),
  };
}

/** Creations per CreateAcls request, filters per DeleteAcls request: bounded frames for accounts with many bindings. */
const ACLS_PER_REQUEST = 1_000;

export async function describeAcls(conns: ClusterConnections, principals?: string[]): Promise<AclBinding[]> {
  return describeFiltered(
    conns,
    (principals ?? [null]).map((principal) => ({
      resourceTypeFilter: AclResourceTypes.ANY,
      resourceNameFilter: null,
      patternTypeFilter: ResourcePatternTypes.ANY,
      principalFilter: principal,
      hostFilter: null,
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
      resourceTypeFilter: RESOURCE_TYPES[p.resourceType],
      resourceNameFilter: p.resourceName,
      patternTypeFilter: p.patternType === undefined ? ResourcePatternTypes.ANY : patternCode({ patternType: p.patternType }),
      principalFilter: null,
      hostFilter: null,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    })),
  );
}

/** One DescribeAcls per filter (the request takes one), pipelined on one connection. */
async function describeFiltered(conns: ClusterConnections, filters: AclFilter[]): Promise<AclBinding[]> {
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.DescribeAcls, 1, 3);
  const out: AclBinding[] = [];
  const responses = await Promise.all(filters.map((f) => conn.request(ApiKey.DescribeAcls, f, version)));
  for (const res of responses) {
    if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, res.errorMessage ?? "DescribeAcls failed");
    for (const r of res.resources) {
      const resourceType = RESOURCE_NAMES.get(r.resourceType);
      const patternType = r.patternType === LITERAL ? "LITERAL" : r.patternType === PREFIXED ? "PREFIXED" : null;
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
          permission: acl.permissionType === DENY ? "DENY" : "ALLOW",
        });
      }
    }
  }
  return out;
}

/** Creates the bindings; the first refused one throws (creating an existing binding is no error in Kafka). */
export async function createAcls(conns: ClusterConnections, bindings: AclBinding[]): Promise<void> {
  if (bindings.length === 0) return;
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.CreateAcls, 1, 3);
  for (let i = 0; i < bindings.length; i += ACLS_PER_REQUEST) {
    const creations = bindings.slice(i, i + ACLS_PER_REQUEST).map((b) => ({
      resourceType: RESOURCE_TYPES[b.resourceType],
      resourceName: b.resourceName,
      resourcePatternType: patternCode(b),
      principal: b.principal,
      host: b.host,
      operation: OPERATIONS[b.operation],
      permissionType: permissionCode(b),
    }));
    const res = await conn.request(ApiKey.CreateAcls, { creations }, version);
    for (const r of res.results) {
      if (r.errorCode !== 0) throw new KafkaProtocolError(r.errorCode, r.errorMessage ?? "CreateAcls failed");
    }
  }
}

/** Deletes exactly these bindings (one exact filter each). */
export async function deleteAcls(conns: ClusterConnections, bindings: AclBinding[]): Promise<void> {
  if (bindings.length === 0) return;
  const conn = await conns.any();
  const version = conn.pickVersion(ApiKey.DeleteAcls, 1, 3);
  for (let i = 0; i < bindings.length; i += ACLS_PER_REQUEST) {
    const res = await conn.request(ApiKey.DeleteAcls, { filters: bindings.slice(i, i + ACLS_PER_REQUEST).map(exactFilter) }, version);
    for (const f of res.filterResults) {
      if (f.errorCode !== 0) throw new KafkaProtocolError(f.errorCode, f.errorMessage ?? "DeleteAcls failed");
    }
  }
}
