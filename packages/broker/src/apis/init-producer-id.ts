// InitProducerId (key 22), versions 0-1.
//
// Request:  transactional_id NULLABLE_STRING, transaction_timeout_ms INT32
// Response: throttle_time_ms INT32, error_code INT16, producer_id INT64, producer_epoch INT16
//
// Idempotent producers (no transactional id) get a fresh producer id with epoch 0
// from the storage engine's durable allocator, so ids are never reused across
// restarts. Transactions are not supported: a transactional id is refused.
import { ApiKey, type DeepPartial, ErrorCode, type InitProducerIdRequest, type InitProducerIdResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf } from "./common.ts";

export const initProducerIdApi = defineApi<InitProducerIdRequest, InitProducerIdResponse>({
  apiKey: ApiKey.InitProducerId,
  name: "InitProducerId",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<InitProducerIdResponse> => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    if (req.transactionalId !== null && req.transactionalId !== undefined) {
      // Kafka first needs WRITE on the TRANSACTIONAL_ID; past that, with no transaction
      // coordinator here, COORDINATOR_NOT_AVAILABLE is the honest answer.
      if (!b.authorizer.authorize(ctx.session, "WRITE", { type: "TRANSACTIONAL_ID", name: req.transactionalId })) {
        return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      }
      return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    // KIP-679 (Kafka 3.0+): IDEMPOTENT_WRITE on CLUSTER, or WRITE on any topic.
    const idempotentAllowed =
      b.authorizer.authorize(ctx.session, "IDEMPOTENT_WRITE", CLUSTER_RESOURCE) || (b.acls ? b.acls.authorizeByResourceType(ctx.session, "WRITE", "TOPIC") : true);
    if (!idempotentAllowed) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    try {
      const producerId = await b.logs.nextProducerId();
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
    } catch (err) {
      return fail(errorOf(ctx, err, "allocating a producer id").code);
    }
  },
});
