// Helpers shared by the transactional API handlers.
import { ErrorCode } from "@kappa/kafka-protocol";
import type { RequestContext } from "../registry.ts";

/**
 * PRODUCER_FENCED (90) exists since KIP-588; each transactional API gained it
 * in a later version. Older requests get INVALID_PRODUCER_EPOCH (47), the
 * error those clients treat as "fenced", as Kafka maps it in KafkaApis.
 */
export function fencedErrorFor(errorCode: number, apiVersion: number, firstVersionWithProducerFenced: number): number {
  return errorCode === ErrorCode.PRODUCER_FENCED && apiVersion < firstVersionWithProducerFenced ? ErrorCode.INVALID_PRODUCER_EPOCH : errorCode;
}

/** WRITE on the TRANSACTIONAL_ID: what Kafka requires for every request that acts on a transaction. */
export function mayWriteTransaction(ctx: RequestContext, transactionalId: string): boolean {
  return ctx.broker.authorizer.authorize(ctx.session, "WRITE", { type: "TRANSACTIONAL_ID", name: transactionalId });
}
