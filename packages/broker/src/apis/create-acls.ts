// CreateAcls (key 30), advertised 0-1, served 0-1 (BROKER-SPEC §1; kafkajs and
// librdkafka 2.0.2 send v1, v0 has no pattern type and means LITERAL).
//
// Request:  creations [resource_type INT8, resource_name STRING, resource_pattern_type INT8 (v1+, default 3 LITERAL),
//                      principal STRING, host STRING, operation INT8, permission_type INT8]
// Response: throttle_time_ms INT32, results [error_code INT16, error_message NULLABLE_STRING]
//
// Kafka's AclApis.handleCreateAcls: ALTER on CLUSTER is required for the whole
// request (CLUSTER_AUTHORIZATION_FAILED on every result); with no authorizer
// every result is SECURITY_DISABLED. As Kafka (checked in the oracle run): a
// creation with a resource type, pattern type, operation or permission sent as
// UNKNOWN (0) closes the connection without an answer (its request class
// refuses to parse it; a code past the last known one is INVALID_REQUEST
// below); a creation holding a filter-only value
// (ANY, pattern MATCH) makes every creation of the request UNKNOWN_SERVER_ERROR
// with no message, nothing created (Kafka builds all bindings before
// validating them, and those throw). Otherwise each creation is validated on
// its own (INVALID_REQUEST, BROKER-SPEC §5 "CreateAcls"); the valid ones are
// stored durably together, then answered. Creating an ACL that exists succeeds.
import { ApiKey, type CreateAclsRequest, type CreateAclsResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { describeBinding, filterOnlyAclValue, newAclProblem, unknownAclElement, type AclBinding } from "../security/acl/index.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf } from "./common.ts";

export const createAclsApi = defineApi<CreateAclsRequest, CreateAclsResponse>({
  apiKey: ApiKey.CreateAcls,
  name: "CreateAcls",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  unparsable(req) {
    for (const c of req.creations) {
      const unknown = unknownAclElement(bindingOf(c));
      if (unknown !== null) return unknown;
    }
    return null;
  },
  async handle(ctx, req) {
    const b = ctx.broker;
    const all = (errorCode: number, errorMessage: string) => ({ throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode, errorMessage })) });
    if (!b.authorizer.authorize(ctx.session, "ALTER", CLUSTER_RESOURCE)) {
      return all(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, `Request CreateAcls from ${ctx.session.principal} is not authorized.`);
    }
    const acls = b.acls;
    if (!acls) return all(ErrorCode.SECURITY_DISABLED, "No Authorizer is configured.");
    const bindings = req.creations.map(bindingOf);
    if (bindings.some(filterOnlyAclValue)) return { throttleTimeMs: 0, results: req.creations.map(() => ({ errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, errorMessage: null })) };
    const results: Array<{ errorCode: number; errorMessage: string | null }> = [];
    const valid: AclBinding[] = [];
    for (const binding of bindings) {
      const problem = newAclProblem(binding);
      results.push(problem === null ? { errorCode: ErrorCode.NONE, errorMessage: null } : { errorCode: ErrorCode.INVALID_REQUEST, errorMessage: problem });
      if (problem === null) valid.push(binding);
    }
    try {
      await acls.createAcls(valid);
      // One line per ACL for the usual handful; a bulk load gets one line.
      if (valid.length <= 20) for (const v of valid) b.logger.info(`${ctx.session.principal} created ACL ${describeBinding(v)}`);
      else b.logger.info(`${ctx.session.principal} created ${valid.length} ACLs (now ${acls.aclCount})`);
    } catch (err) {
      const e = errorOf(ctx, err, "storing ACLs");
      for (const r of results) if (r.errorCode === ErrorCode.NONE) Object.assign(r, { errorCode: e.code, errorMessage: e.message });
    }
    return { throttleTimeMs: 0, results };
  },
});

function bindingOf(c: CreateAclsRequest["creations"][number]): AclBinding {
  return {
    resourceType: c.resourceType,
    resourceName: c.resourceName,
    // v0 carries no pattern type: the codec's default is LITERAL, as in Kafka.
    patternType: c.resourcePatternType,
    principal: c.principal,
    host: c.host,
    operation: c.operation,
    permission: c.permissionType,
  };
}
