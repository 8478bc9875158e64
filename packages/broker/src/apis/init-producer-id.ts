// InitProducerId (key 22), versions 0-5 (flexible from 2).
//
// Request:  transactional_id NULLABLE_STRING, transaction_timeout_ms INT32,
//           producer_id INT64 (v3+, default -1), producer_epoch INT16 (v3+, default -1)
// Response: throttle_time_ms INT32, error_code INT16, producer_id INT64, producer_epoch INT16
//
// Without a transactional id: a fresh producer id at epoch 0 from the storage
// engine's durable allocator, whatever producer id/epoch the request carries
// (Kafka's coordinator does the same; KIP-360's epoch bump for idempotent
// producers is thus a new id). With one: the transaction coordinator fences
// older epochs, aborts a pending transaction of the previous incarnation, and
// checks transaction.timeout.ms against transaction.max.timeout.ms. v3+ may name
// the producer's current id and epoch to resume after an error (KIP-360).
// Versions below 4 predate PRODUCER_FENCED (KIP-588) and get
// INVALID_PRODUCER_EPOCH instead, as Kafka answers them; v5 only allows the
// TRANSACTION_ABORTABLE error, which this broker never returns.
import { ApiKey, type DeepPartial, ErrorCode, type InitProducerIdRequest, type InitProducerIdResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf } from "./common.ts";
import { fencedErrorFor } from "./txn-common.ts";

export const initProducerIdApi = defineApi<InitProducerIdRequest, InitProducerIdResponse>({
  apiKey: ApiKey.InitProducerId,
  name: "InitProducerId",
  advertised: { min: 0, max: 5 },
  implemented: { min: 0, max: 5 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const fail = (errorCode: number): DeepPartial<InitProducerIdResponse> => ({ throttleTimeMs: 0, errorCode, producerId: -1n, producerEpoch: -1 });
    const transactionalId = req.transactionalId ?? null;
    if (transactionalId !== null) {
      if (!b.authorizer.authorize(ctx.session, "WRITE", { type: "TRANSACTIONAL_ID", name: transactionalId })) {
        return fail(ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
      }
    } else {
      // KIP-679 (Kafka 3.0+): IDEMPOTENT_WRITE on CLUSTER, or WRITE on any topic.
      const idempotentAllowed =
        b.authorizer.authorize(ctx.session, "IDEMPOTENT_WRITE", CLUSTER_RESOURCE) || (b.acls ? b.acls.authorizeByResourceType(ctx.session, "WRITE", "TOPIC") : true);
      if (!idempotentAllowed) return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
    }
    const pid = req.producerId ?? -1n;
    const epoch = req.producerEpoch ?? -1;
    // Both or neither: a producer id without an epoch (or the reverse) is malformed.
    if ((pid === -1n) !== (epoch === -1)) return fail(ErrorCode.INVALID_REQUEST);
    try {
      if (transactionalId === null) {
        const producerId = await b.logs.nextProducerId();
        return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
      }
      const r = await b.transactions.initProducerId(transactionalId, req.transactionTimeoutMs, pid === -1n ? null : { producerId: Number(pid), producerEpoch: epoch });
      if (r.errorCode !== ErrorCode.NONE) return fail(fencedErrorFor(r.errorCode, ctx.apiVersion, 4));
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId: BigInt(r.producerId), producerEpoch: r.producerEpoch };
    } catch (err) {
      return fail(errorOf(ctx, err, transactionalId === null ? "allocating a producer id" : `InitProducerId for transactional id ${transactionalId}`).code);
    }
  },
});
