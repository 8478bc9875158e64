// AddOffsetsToTxn (key 25), versions 0-4 (flexible from 3).
//
// Request:  transactional_id STRING, producer_id INT64, producer_epoch INT16, group_id STRING
// Response: throttle_time_ms INT32, error_code INT16
//
// Adds the consumer group to the transaction, so that the offsets a
// TxnOffsetCommit then sends for it are committed or dropped with the
// transaction (Kafka adds the group's __consumer_offsets partition). Needs WRITE
// on the TRANSACTIONAL_ID and READ on the GROUP, in that order. PRODUCER_FENCED
// is INVALID_PRODUCER_EPOCH before v2; v4 only allows TRANSACTION_ABORTABLE,
// which is never returned here.
import { ApiKey, type AddOffsetsToTxnRequest, type AddOffsetsToTxnResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";
import { fencedErrorFor, mayWriteTransaction } from "./txn-common.ts";

export const addOffsetsToTxnApi = defineApi<AddOffsetsToTxnRequest, AddOffsetsToTxnResponse>({
  apiKey: ApiKey.AddOffsetsToTxn,
  name: "AddOffsetsToTxn",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  async handle(ctx, req) {
    const b = ctx.broker;
    if (!mayWriteTransaction(ctx, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    if (!b.authorizer.authorize(ctx.session, "READ", { type: "GROUP", name: req.groupId })) return { throttleTimeMs: 0, errorCode: ErrorCode.GROUP_AUTHORIZATION_FAILED };
    let code: number;
    try {
      code = await b.transactions.addToTransaction(req.transactionalId, Number(req.producerId), req.producerEpoch, [], [req.groupId]);
    } catch (err) {
      code = errorOf(ctx, err, `AddOffsetsToTxn for transactional id ${req.transactionalId}`).code;
    }
    return { throttleTimeMs: 0, errorCode: fencedErrorFor(code, ctx.apiVersion, 2) };
  },
});
