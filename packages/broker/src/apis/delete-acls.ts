// DeleteAcls (key 31), advertised 0-1, served 0-1.
//
// Request:  filters [resource_type_filter INT8, resource_name_filter NULLABLE_STRING,
//                    pattern_type_filter INT8 (v1+, default 3 LITERAL), principal_filter NULLABLE_STRING,
//                    host_filter NULLABLE_STRING, operation INT8, permission_type INT8]
// Response: throttle_time_ms INT32, filter_results [error_code INT16, error_message NULLABLE_STRING,
//           matching_acls [error_code INT16, error_message NULLABLE_STRING, resource_type INT8,
//                          resource_name STRING, pattern_type INT8 (v1+), principal STRING, host STRING,
//                          operation INT8, permission_type INT8]]
//
// Kafka's AclApis.handleDeleteAcls: ALTER on CLUSTER (else every filter result
// is CLUSTER_AUTHORIZATION_FAILED), SECURITY_DISABLED without an authorizer.
// A filter with an element sent as UNKNOWN (0) closes the connection without
// an answer, as Kafka's DeleteAclsRequest refuses to parse it (checked in the
// oracle run); one past the last known code is INVALID_REQUEST for that filter.
// Each filter deletes what it matches (an ACL matched by two filters is listed
// under the first); the deletions of one request are stored durably together
// and take effect before the response, i.e. from the next request of every
// connection.
import { ApiKey, type DeleteAclsRequest, type DeleteAclsResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { describeBinding, filterProblem, unknownFilterElement, type AclFilter } from "../security/acl/index.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf } from "./common.ts";

export const deleteAclsApi = defineApi<DeleteAclsRequest, DeleteAclsResponse>({
  apiKey: ApiKey.DeleteAcls,
  name: "DeleteAcls",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  unparsable(req) {
    for (const f of req.filters) {
      const problem = unknownFilterElement({ resourceType: f.resourceTypeFilter, resourceName: f.resourceNameFilter, patternType: f.patternTypeFilter, principal: f.principalFilter, host: f.hostFilter, operation: f.operation, permission: f.permissionType });
      if (problem !== null) return problem;
    }
    return null;
  },
  async handle(ctx, req) {
    const b = ctx.broker;
    const all = (errorCode: number, errorMessage: string) => ({
      throttleTimeMs: 0,
      filterResults: req.filters.map(() => ({ errorCode, errorMessage, matchingAcls: [] })),
    });
    if (!b.authorizer.authorize(ctx.session, "ALTER", CLUSTER_RESOURCE)) {
      return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, `Request DeleteAcls from ${ctx.session.principal} is not authorized.`);
    }
    const acls = b.acls;
    if (!acls) return all(ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.");
    const filters = req.filters.map((f) => {
      const filter: AclFilter = {
        resourceType: f.resourceTypeFilter,
        resourceName: f.resourceNameFilter,
        patternType: f.patternTypeFilter,
        principal: f.principalFilter,
        host: f.hostFilter,
        operation: f.operation,
        permission: f.permissionType,
      };
      return { filter, problem: filterProblem(filter) };
    });
    let results;
    try {
      results = await acls.deleteAcls(filters);
    } catch (err) {
      const e = errorOf(ctx, err, "deleting ACLs");
      return all(e.code, e.message);
    }
    const deleted = results.flatMap((r) => r.deleted);
    if (deleted.length <= 20) for (const d of deleted) b.logger.info(`${ctx.session.principal} deleted ACL ${describeBinding(d)}`);
    else b.logger.info(`${ctx.session.principal} deleted ${deleted.length} ACLs (now ${acls.aclCount})`);
    return {
      throttleTimeMs: 0,
      filterResults: results.map((r) =>
        r.problem !== null
          ? { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: r.problem, matchingAcls: [] }
          : {
              errorCode: ErrorCode.NONE,
              errorMessage: null,
              matchingAcls: r.deleted.map((d) => ({
                errorCode: ErrorCode.NONE,
                errorMessage: null,
                resourceType: d.resourceType,
                resourceName: d.resourceName,
                patternType: d.patternType,
                principal: d.principal,
                host: d.host,
                operation: d.operation,
                permissionType: d.permission,
              })),
            },
      ),
    };
  },
});
