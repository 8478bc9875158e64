// DescribeAcls (key 29), advertised 0-1, served 0-1.
//
// Request:  resource_type_filter INT8, resource_name_filter NULLABLE_STRING,
//           pattern_type_filter INT8 (v1+, default 3 LITERAL), principal_filter NULLABLE_STRING,
//           host_filter NULLABLE_STRING, operation INT8, permission_type INT8
// Response: throttle_time_ms INT32, error_code INT16, error_message NULLABLE_STRING,
//           resources [resource_type INT8, resource_name STRING, pattern_type INT8 (v1+),
//                      acls [principal STRING, host STRING, operation INT8, permission_type INT8]]
//
// Kafka's AclApis.handleDescribeAcls: DESCRIBE on CLUSTER (else
// CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an authorizer. A
// filter with an element sent as UNKNOWN (0) closes the connection without an
// answer, as Kafka's DescribeAclsRequest refuses to parse it (checked in the
// oracle run); one past the last known code is INVALID_REQUEST.
// Filter semantics (ANY, MATCH, null = any) are ResourcePatternFilter's, see
// security/acl/types.ts. Matching ACLs are grouped by resource pattern.
import { ApiKey, type DeepPartial, type DescribeAclsRequest, type DescribeAclsResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { filterProblem, unknownFilterElement, type AclFilter } from "../security/acl/index.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

type ResourceOut = DeepPartial<DescribeAclsResponse["resources"][number]>;

export const describeAclsApi = defineApi<DescribeAclsRequest, DescribeAclsResponse>({
  apiKey: ApiKey.DescribeAcls,
  name: "DescribeAcls",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  unparsable: (req) => unknownFilterElement(filterOf(req)),
  handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, errorCode, errorMessage, resources: [] });
    if (!b.authorizer.authorize(ctx.session, "DESCRIBE", CLUSTER_RESOURCE)) {
      return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, `Request DescribeAcls from ${ctx.session.principal} is not authorized.`);
    }
    if (!b.acls) return fail(ErrorCode.SECURITY_DISABLED, "No Authorizer is configured on the broker");
    const filter = filterOf(req);
    const problem = filterProblem(filter);
    if (problem !== null) return fail(ErrorCode.INVALID_REQUEST, problem);
    const byPattern = new Map<string, ResourceOut & { acls: NonNullable<ResourceOut["acls"]> }>();
    for (const acl of b.acls.acls(filter)) {
      const key = JSON.stringify([acl.resourceType, acl.resourceName, acl.patternType]);
      let r = byPattern.get(key);
      if (!r) {
        r = { resourceType: acl.resourceType, resourceName: acl.resourceName, patternType: acl.patternType, acls: [] };
        byPattern.set(key, r);
      }
      r.acls.push({ principal: acl.principal, host: acl.host, operation: acl.operation, permissionType: acl.permission });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, resources: [...byPattern.values()] };
  },
});

function filterOf(req: DescribeAclsRequest): AclFilter {
  return {
    resourceType: req.resourceTypeFilter,
    resourceName: req.resourceNameFilter,
    patternType: req.patternTypeFilter,
    principal: req.principalFilter,
    host: req.hostFilter,
    operation: req.operation,
    permission: req.permissionType,
  };
}
