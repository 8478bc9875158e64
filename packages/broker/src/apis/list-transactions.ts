// ListTransactions (key 66), versions 0-1 (flexible). KIP-664; v1 adds KIP-994's duration filter.
//
// Request:  state_filters [STRING], producer_id_filters [INT64], duration_filter INT64 (v1+, default -1)
// Response: throttle_time_ms INT32, error_code INT16, unknown_state_filters [STRING],
//           transaction_states [transactional_id STRING, producer_id INT64, transaction_state STRING]
//
// Lists the transactional ids this coordinator holds, leaving out those the
// caller may not DESCRIBE (Kafka filters them silently). Empty filters match
// everything; state names Kafka does not know are echoed in unknown_state_filters.
import { ApiKey, ErrorCode, type ListTransactionsRequest, type ListTransactionsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const listTransactionsApi = defineApi<ListTransactionsRequest, ListTransactionsResponse>({
  apiKey: ApiKey.ListTransactions,
  name: "ListTransactions",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  handle(ctx, req) {
    const b = ctx.broker;
    const { unknownStates, transactions } = b.transactions.list(req.stateFilters, req.producerIdFilters.map(Number), Number(req.durationFilter ?? -1n));
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      unknownStateFilters: unknownStates,
      transactionStates: transactions
        .filter((t) => b.authorizer.authorize(ctx.session, "DESCRIBE", { type: "TRANSACTIONAL_ID", name: t.transactionalId }))
        .map((t) => ({ transactionalId: t.transactionalId, producerId: BigInt(t.producerId), transactionState: t.state })),
    };
  },
});
