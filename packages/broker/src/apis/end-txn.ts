// EndTxn (key 26), versions 0-4 (flexible from 3).
//
// Request:  transactional_id STRING, producer_id INT64, producer_epoch INT16, committed BOOL
// Response: throttle_time_ms INT32, error_code INT16
//
// Commits or aborts the producer's ongoing transaction: the decision is logged
// durably, then markers are written to every partition of the transaction and,
// on commit, its TxnOffsetCommit offsets applied (src/transactions/). The answer
// comes once the markers are durable, so a READ_COMMITTED consumer sees the
// outcome as soon as the producer does. Needs WRITE on the TRANSACTIONAL_ID.
// PRODUCER_FENCED is INVALID_PRODUCER_EPOCH before v2. v5 (KIP-890 part 2: an
// epoch bump per transaction) is not implemented, so not advertised.
import { ApiKey, type EndTxnRequest, type EndTxnResponse, ErrorCode } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { errorOf } from "./common.ts";
import { fencedErrorFor, mayWriteTransaction } from "./txn-common.ts";

export const endTxnApi = defineApi<EndTxnRequest, EndTxnResponse>({
  apiKey: ApiKey.EndTxn,
  name: "EndTxn",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  async handle(ctx, req) {
    const b = ctx.broker;
    if (!mayWriteTransaction(ctx, req.transactionalId)) return { throttleTimeMs: 0, errorCode: ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED };
    let code: number;
    try {
      code = await b.transactions.endTxn(req.transactionalId, Number(req.producerId), req.producerEpoch, req.committed);
    } catch (err) {
      code = errorOf(ctx, err, `EndTxn for transactional id ${req.transactionalId}`).code;
    }
    return { throttleTimeMs: 0, errorCode: fencedErrorFor(code, ctx.apiVersion, 2) };
  },
});
