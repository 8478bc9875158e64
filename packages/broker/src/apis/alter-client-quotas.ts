// AlterClientQuotas (key 49), versions 0-1 (v1 flexible). KIP-546.
//
// Request:  entries [entity [entity_type STRING, entity_name NULLABLE_STRING],
//                    ops [key STRING, value FLOAT64, remove BOOLEAN]], validate_only BOOLEAN
// Response: throttle_time_ms INT32, entries [error_code INT16, error_message NULLABLE_STRING,
//           entity [entity_type STRING, entity_name NULLABLE_STRING]]
//
// One result per request entry, in request order, each with its entity. An
// entry is refused with INVALID_REQUEST (and changes nothing) for: an empty
// entity, an entity type other than user / client-id (ip quotas are not
// served), a type named twice, an empty name (null is the default); an
// entity named twice in the request; an unknown key or one named twice; a
// non-integral value for a LONG key (producer_byte_rate, consumer_byte_rate);
// a value that is not a positive finite number (Kafka would divide by a zero
// bound). Removing a key that is not set succeeds. The accepted entries are
// written as one durable step before the answer (src/quotas/store.ts), and
// take effect for the next request of every connection; with validate_only
// nothing is written. Needs ALTER_CONFIGS on CLUSTER, else every entry gets
// CLUSTER_AUTHORIZATION_FAILED.
import { ApiKey, ErrorCode, type AlterClientQuotasRequest, type AlterClientQuotasResponse, type DeepPartial } from "@kappa/kafka-protocol";
import { QUOTA_KEYS, describeEntity, entityFromComponents, entityKey, isEntityProblem, isQuotaKey, type QuotaKey } from "../quotas/entity.ts";
import type { QuotaChange } from "../quotas/store.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

type Result = DeepPartial<AlterClientQuotasResponse["entries"][number]>;

function opsOf(entry: AlterClientQuotasRequest["entries"][number]): Map<QuotaKey, number | null> | string {
  const ops = new Map<QuotaKey, number | null>();
  for (const op of entry.ops) {
    if (!isQuotaKey(op.key)) return `Invalid configuration key ${op.key}`;
    if (ops.has(op.key)) return `Configuration key ${op.key} appears more than once`;
    if (op.remove) {
      ops.set(op.key, null);
      continue;
    }
    if (!Number.isFinite(op.value) || op.value <= 0) return `Configuration ${op.key} must be a positive number, got ${op.value}`;
    if (QUOTA_KEYS[op.key] === "LONG" && (!Number.isInteger(op.value) || op.value > Number.MAX_SAFE_INTEGER)) return `Configuration ${op.key} must be a Long value`;
    ops.set(op.key, op.value);
  }
  return ops;
}

export const alterClientQuotasApi = defineApi<AlterClientQuotasRequest, AlterClientQuotasResponse>({
  apiKey: ApiKey.AlterClientQuotas,
  name: "AlterClientQuotas",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const echo = (e: AlterClientQuotasRequest["entries"][number]) => e.entity.map((c) => ({ entityType: c.entityType, entityName: c.entityName }));
    if (!b.authorizer.authorize(ctx.session, "ALTER_CONFIGS", CLUSTER_RESOURCE)) {
      return {
        throttleTimeMs: 0,
        entries: req.entries.map((e) => ({ errorCode: ErrorCode.CLUSTER_AUTHORIZATION_FAILED, errorMessage: "Cluster authorization failed.", entity: echo(e) })),
      };
    }
    const counts = new Map<string, number>();
    const parsed = req.entries.map((e) => {
      const entity = entityFromComponents(e.entity);
      if (!isEntityProblem(entity)) counts.set(entityKey(entity), (counts.get(entityKey(entity)) ?? 0) + 1);
      return entity;
    });
    const changes: QuotaChange[] = [];
    const results: Result[] = req.entries.map((e, i) => {
      const entity = parsed[i];
      const fail = (message: string): Result => ({ errorCode: ErrorCode.INVALID_REQUEST, errorMessage: message, entity: echo(e) });
      if (!entity) return fail("Invalid entity");
      if (isEntityProblem(entity)) return fail(entity.message);
      if ((counts.get(entityKey(entity)) ?? 0) > 1) return fail(`Entity ${describeEntity(entity)} appears more than once in the request`);
      const ops = opsOf(e);
      if (typeof ops === "string") return fail(ops);
      if (ops.size > 0) changes.push({ entity, ops });
      return { errorCode: ErrorCode.NONE, errorMessage: null, entity: echo(e) };
    });
    if (!req.validateOnly && changes.length > 0) {
      await b.quotas.store.apply(changes);
      b.logger.info(
        `client quotas altered by ${ctx.session.principal}: ${changes
          .map((c) => `${describeEntity(c.entity)}: ${[...c.ops].map(([k, v]) => (v === null ? `-${k}` : `${k}=${v}`)).join(" ")}`)
          .join("; ")}`,
      );
    }
    return { throttleTimeMs: 0, entries: results };
  },
});
