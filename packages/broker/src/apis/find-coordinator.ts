// FindCoordinator (key 10), versions 0-2.
//
// Request:  key STRING, key_type INT8 (v1+: 0 group, 1 transaction)
// Response: throttle_time_ms INT32 (v1+), error_code INT16, error_message NULLABLE_STRING (v1+),
//           node_id INT32, host STRING, port INT32
//
// This node coordinates every group and every transactional id (the
// transaction coordinator of src/transactions/), so both key types answer with
// its address on the listener the client connected to.
import { ApiKey, ErrorCode, type FindCoordinatorRequest, type FindCoordinatorResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const findCoordinatorApi = defineApi<FindCoordinatorRequest, FindCoordinatorResponse>({
  apiKey: ApiKey.FindCoordinator,
  name: "FindCoordinator",
  advertised: { min: 0, max: 2 },
  implemented: { min: 0, max: 2 },
  handle(ctx, req) {
    const b = ctx.broker;
    const none = { throttleTimeMs: 0, nodeId: -1, host: "", port: -1 };
    const key = req.key ?? "";
    if ((req.keyType ?? 0) === 1) {
      // Kafka checks DESCRIBE on the transactional id before looking for its coordinator.
      if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TRANSACTIONAL_ID", name: key })) {
        return { ...none, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED, errorMessage: null };
      }
    } else if ((req.keyType ?? 0) !== 0) {
      return { ...none, errorCode: ErrorCode.INVALID_REQUEST, errorMessage: `Unknown key type ${req.keyType}` };
    } else if (!b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "GROUP", name: key })) {
      return { ...none, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED, errorMessage: null };
    }
    // The coordinator's address on the listener this client uses (Kafka answers per listener).
    const { host, port } = b.advertisedFor(ctx.session);
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, nodeId: b.nodeId, host, port };
  },
});
