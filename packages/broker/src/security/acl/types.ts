// ACL vocabulary: the wire codes of Kafka's ResourceType, AclOperation,
// PatternType and AclPermissionType (BROKER-SPEC §5 "ACL codes"), the stored
// binding, and Kafka's filter matching (ResourcePatternFilter.matches and
// AccessControlEntryFilter.matches) used by DescribeAcls and DeleteAcls.
import type { AclOperation as OperationName, ResourceType as ResourceTypeName } from "../../session.ts";

export const AclResourceType = {
  UNKNOWN: 0,
  ANY: 1,
  TOPIC: 2,
  GROUP: 3,
  CLUSTER: 4,
  TRANSACTIONAL_ID: 5,
  DELEGATION_TOKEN: 6,
  USER: 7,
} as const;

export const AclOperationCode = {
  UNKNOWN: 0,
  ANY: 1,
  ALL: 2,
  READ: 3,
  WRITE: 4,
  CREATE: 5,
  DELETE: 6,
  ALTER: 7,
  DESCRIBE: 8,
  CLUSTER_ACTION: 9,
  DESCRIBE_CONFIGS: 10,
  ALTER_CONFIGS: 11,
  IDEMPOTENT_WRITE: 12,
  CREATE_TOKENS: 13,
  DESCRIBE_TOKENS: 14,
} as const;

export const PatternType = { UNKNOWN: 0, ANY: 1, MATCH: 2, LITERAL: 3, PREFIXED: 4 } as const;

export const Permission = { UNKNOWN: 0, ANY: 1, DENY: 2, ALLOW: 3 } as const;

/** Kafka's ResourcePattern.WILDCARD_RESOURCE and AclEntry.WildcardHost. */
export const WILDCARD = "*";
export const WILDCARD_PRINCIPAL = "User:*";
/** The only name a CLUSTER resource can have (Resource.CLUSTER_NAME). */
export const CLUSTER_NAME = "kafka-cluster";

const RESOURCE_TYPE_MAX = 7;
const OPERATION_MAX = 14;
const PATTERN_TYPE_MAX = 4;
const PERMISSION_MAX = 3;

/** One stored ACL, with wire codes. Identity is the whole tuple: creating it twice stores it once. */
export interface AclBinding {
  resourceType: number;
  resourceName: string;
  patternType: number;
  principal: string;
  host: string;
  operation: number;
  permission: number;
}

/** DescribeAcls / DeleteAcls filter; null strings match anything. */
export interface AclFilter {
  resourceType: number;
  resourceName: string | null;
  patternType: number;
  principal: string | null;
  host: string | null;
  operation: number;
  permission: number;
}

export function bindingKey(b: AclBinding): string {
  return JSON.stringify([b.resourceType, b.resourceName, b.patternType, b.principal, b.host, b.operation, b.permission]);
}

/** Kafka's fromCode: codes it does not know are UNKNOWN. */
function known(code: number, max: number): number {
  return Number.isInteger(code) && code >= 0 && code <= max ? code : 0;
}

export function resourceTypeCode(name: ResourceTypeName): number {
  return AclResourceType[name];
}

export function operationCode(name: OperationName): number {
  return AclOperationCode[name];
}

/**
 * Validation of a new ACL, as Kafka's AclControlManager.validateNewAcl and
 * AclApis.handleCreateAcls do it; returns the INVALID_REQUEST message or null.
 */
export function newAclProblem(b: AclBinding): string | null {
  const type = known(b.resourceType, RESOURCE_TYPE_MAX);
  if (type === AclResourceType.UNKNOWN || type === AclResourceType.ANY) return `Invalid resourceType ${resourceTypeName(type)}`;
  const pattern = known(b.patternType, PATTERN_TYPE_MAX);
  if (pattern !== PatternType.LITERAL && pattern !== PatternType.PREFIXED) return `Invalid patternType ${patternTypeName(pattern)}`;
  const op = known(b.operation, OPERATION_MAX);
  if (op === AclOperationCode.UNKNOWN || op === AclOperationCode.ANY) return `Invalid operation ${operationName(op)}`;
  const perm = known(b.permission, PERMISSION_MAX);
  if (perm !== Permission.ALLOW && perm !== Permission.DENY) return `Invalid permissionType ${permissionName(perm)}`;
  if (type === AclResourceType.CLUSTER && b.resourceName !== CLUSTER_NAME) return `The only valid name for the CLUSTER resource is ${CLUSTER_NAME}`;
  if (b.resourceName === "") return "Invalid empty resource name";
  if (!b.principal.includes(":")) {
    return `Could not parse principal from \`${b.principal}\` (no colon is present separating the principal type from the principal name)`;
  }
  return null;
}

/**
 * A new ACL that Kafka's CreateAclsRequest refuses to parse: a resource type,
 * pattern type, operation or permission sent as UNKNOWN (code 0). Kafka closes
 * the connection without an answer; so does this broker (the message is for
 * its log). A code past the last known one passes the parser there, and
 * validation answers INVALID_REQUEST "Invalid … UNKNOWN" (newAclProblem).
 */
export function unknownAclElement(b: AclBinding): string | null {
  if (b.resourceType === AclResourceType.UNKNOWN) return "a creation has an UNKNOWN resource type";
  if (b.patternType === PatternType.UNKNOWN) return "a creation has an UNKNOWN pattern type";
  if (b.operation === AclOperationCode.UNKNOWN) return "a creation has an UNKNOWN operation";
  if (b.permission === Permission.UNKNOWN) return "a creation has an UNKNOWN permission type";
  return null;
}

/**
 * A filter that Kafka's DescribeAclsRequest / DeleteAclsRequest refuse to
 * parse (an element sent as UNKNOWN, code 0): the connection closes without
 * an answer. A code past the last known one is filterProblem's.
 */
export function unknownFilterElement(f: AclFilter): string | null {
  if (f.resourceType === AclResourceType.UNKNOWN || f.patternType === PatternType.UNKNOWN) return "Unknown patternFilter.";
  if (f.operation === AclOperationCode.UNKNOWN || f.permission === Permission.UNKNOWN) return "Unknown entryFilter.";
  return null;
}

/**
 * A new ACL holding a value only a filter may hold (resource type, pattern,
 * operation or permission ANY, pattern MATCH): Kafka's AclApis.handleCreateAcls
 * builds every binding of the request before validating them, these throw
 * there, and the whole request is answered UNKNOWN_SERVER_ERROR.
 */
export function filterOnlyAclValue(b: AclBinding): boolean {
  return (
    known(b.resourceType, RESOURCE_TYPE_MAX) === AclResourceType.ANY ||
    known(b.patternType, PATTERN_TYPE_MAX) === PatternType.ANY ||
    known(b.patternType, PATTERN_TYPE_MAX) === PatternType.MATCH ||
    known(b.operation, OPERATION_MAX) === AclOperationCode.ANY ||
    known(b.permission, PERMISSION_MAX) === Permission.ANY
  );
}

/**
 * A filter with an UNKNOWN element matches nothing meaningful; Kafka refuses it
 * (AclControlManager.validateFilter: "Unknown patternFilter." / "Unknown entryFilter.").
 * Sent as code 0, its request parser already refused it (unknownFilterElement).
 */
export function filterProblem(f: AclFilter): string | null {
  if (known(f.resourceType, RESOURCE_TYPE_MAX) === AclResourceType.UNKNOWN || known(f.patternType, PATTERN_TYPE_MAX) === PatternType.UNKNOWN) {
    return "Unknown patternFilter.";
  }
  if (known(f.operation, OPERATION_MAX) === AclOperationCode.UNKNOWN || known(f.permission, PERMISSION_MAX) === Permission.UNKNOWN) {
    return "Unknown entryFilter.";
  }
  return null;
}

/** ResourcePatternFilter.matches. */
export function patternMatches(f: AclFilter, b: AclBinding): boolean {
  if (f.resourceType !== AclResourceType.ANY && f.resourceType !== b.resourceType) return false;
  if (f.patternType !== PatternType.ANY && f.patternType !== PatternType.MATCH && f.patternType !== b.patternType) return false;
  if (f.resourceName === null) return true;
  if (f.patternType === PatternType.ANY || f.patternType === b.patternType) return f.resourceName === b.resourceName;
  // MATCH: every pattern that would apply to a resource with this name.
  if (b.patternType === PatternType.LITERAL) return f.resourceName === b.resourceName || b.resourceName === WILDCARD;
  return f.resourceName.startsWith(b.resourceName);
}

/** AccessControlEntryFilter.matches: exact principal and host strings, ANY for operation and permission. */
export function entryMatches(f: AclFilter, b: AclBinding): boolean {
  if (f.principal !== null && f.principal !== b.principal) return false;
  if (f.host !== null && f.host !== b.host) return false;
  if (f.operation !== AclOperationCode.ANY && f.operation !== b.operation) return false;
  return f.permission === Permission.ANY || f.permission === b.permission;
}

export function filterMatches(f: AclFilter, b: AclBinding): boolean {
  return patternMatches(f, b) && entryMatches(f, b);
}

function nameOf(table: Record<string, number>, code: number): string {
  for (const [k, v] of Object.entries(table)) if (v === code) return k;
  return "UNKNOWN";
}
export const resourceTypeName = (c: number): string => nameOf(AclResourceType, c);
export const operationName = (c: number): string => nameOf(AclOperationCode, c);
export const patternTypeName = (c: number): string => nameOf(PatternType, c);
export const permissionName = (c: number): string => nameOf(Permission, c);

/** Human-readable form for logs, close to Kafka's AclBinding.toString. */
export function describeBinding(b: AclBinding): string {
  return `(pattern=ResourcePattern(resourceType=${resourceTypeName(b.resourceType)}, name=${b.resourceName}, patternType=${patternTypeName(b.patternType)}), entry=(principal=${b.principal}, host=${b.host}, operation=${operationName(b.operation)}, permissionType=${permissionName(b.permission)}))`;
}
