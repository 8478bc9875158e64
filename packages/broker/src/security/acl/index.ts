export { StandardAuthorizer, normalizeHost, parseSuperUsers, type StandardAuthorizerOptions, type DeleteResult } from "./standard-authorizer.ts";
export { AclIndex } from "./acl-index.ts";
export { AclStore, type AclChange } from "./acl-store.ts";
export {
  AclOperationCode,
  AclResourceType,
  CLUSTER_NAME,
  PatternType,
  Permission,
  WILDCARD,
  WILDCARD_PRINCIPAL,
  describeBinding,
  filterMatches,
  filterOnlyAclValue,
  filterProblem,
  newAclProblem,
  unknownAclElement,
  unknownFilterElement,
  type AclBinding,
  type AclFilter,
} from "./types.ts";
