// AlterClientQuotas (key 49), versions 0-1 (v1 flexible). KIP-546.
//
// Request:  entries [entity [entity_type STRING, entity_name NULLABLE_STRING],
//                    ops [key STRING, value FLOAT64, remove BOOLEAN]], validate_only BOOLEAN
// Response: throttle_time_ms INT32, entries [error_code INT16, error_message NULLABLE_STRING,
//           entity [entity_type STRING, entity_name NULLABLE_STRING]]
//
// As Kafka's ClientQuotaControlManager.alterClientQuotas (checked against
// Apache Kafka 4.1 in the oracle run): an entry's entity is a map of entity
// type to name, so a type named twice keeps its last name. Entries are taken
// in order; each puts one result for its entity, so the answer has one entry
// per distinct entity, in the order a java.util.HashMap keyed by the entity
// iterates (javaHashMapOrderBy, hashCode = 31 + the entity map's), each entity's
// components in that map's order. An entity met again gets "Ignoring
// duplicate entity ClientQuotaEntity(entries={…})" (its earlier entry's
// change still applies, as there); a key named twice in one entry gets the
// same (Kafka records the duplicate key's error, then finds the entity
// already answered). Otherwise INVALID_REQUEST for: an empty entity, an empty
// user or client-id name (null is the default), an entity type other than
// user / client-id, an unknown key, a value ≤ 0, a LONG key's value above
// Long.MAX_VALUE or with a fraction. Removing a key that is not set succeeds.
// Two refusals Kafka does not make: `ip` entities (KIP-612 connection rates
// are not implemented here, so they are refused rather than stored
// unenforced), and a value that is not a finite number (Kafka stores NaN and
// an infinite DOUBLE, which no quota check can use). The accepted entries are
// written as one durable step before the answer (src/quotas/store.ts), and
// take effect for the next request of every connection; with validate_only
// nothing is written. Needs ALTER_CONFIGS on CLUSTER, else every entry gets
// CLUSTER_AUTHORIZATION_FAILED (entities as sent, in request order).
import { ApiKey, ErrorCode, type AlterClientQuotasRequest, type AlterClientQuotasResponse, type DeepPartial } from "@kappa/kafka-protocol";
import { javaHashMapOrder, javaHashMapOrderBy, javaStringHash } from "../java-hash-order.ts";
import { QUOTA_KEYS, describeEntity, isQuotaKey, type QuotaEntity, type QuotaKey } from "../quotas/entity.ts";
import type { QuotaChange } from "../quotas/store.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

type Result = DeepPartial<AlterClientQuotasResponse["entries"][number]>;

/** Kafka's ClientQuotaEntity: type → name (null: the default), in its HashMap's order. */
interface KafkaEntity {
  components: Array<[type: string, name: string | null]>;
  /** Equal entities, equal ids. */
  id: string;
  /** ClientQuotaEntity.hashCode(): Objects.hash(entries) = 31 + Map.hashCode(), the sum of key.hashCode() ^ value.hashCode() (null: 0). */
  hash: number;
}

function kafkaEntity(components: AlterClientQuotasRequest["entries"][number]["entity"]): KafkaEntity {
  const names = new Map<string, string | null>();
  for (const c of components) names.set(c.entityType, c.entityName);
  const ordered = javaHashMapOrder(names.keys()).map((t): [string, string | null] => [t, names.get(t) ?? null]);
  let hash = 31;
  for (const [t, n] of ordered) hash = (hash + (javaStringHash(t) ^ (n === null ? 0 : javaStringHash(n)))) | 0;
  return { components: ordered, id: JSON.stringify([...ordered].sort(([a], [b]) => (a < b ? -1 : 1))), hash };
}

/** ClientQuotaEntity.toString(), e.g. ClientQuotaEntity(entries={client-id=x, user=null}). */
function kafkaEntityText(e: KafkaEntity): string {
  return `ClientQuotaEntity(entries={${e.components.map(([t, n]) => `${t}=${n}`).join(", ")}})`;
}

/** ClientQuotaControlManager.validateEntity, for the types this broker serves; the entity or why not. */
function validEntity(e: KafkaEntity): QuotaEntity | string {
  if (e.components.length === 0) return "Invalid empty client quota entity";
  const entity: QuotaEntity = {};
  for (const [type, name] of e.components) {
    if (type === "user" || type === "client-id") {
      if (name === "") return `Empty ${type} not supported`;
      entity[type] = name;
    } else if (type === "ip") {
      return "ip quotas (connection_creation_rate) are not supported by this broker";
    } else {
      return `Unhandled client quota entity type: ${type}`;
    }
  }
  return entity;
}

/** ClientQuotaControlManager.validateQuotaKeyValue (keys in their HashMap's order); the ops or why not. */
function validOps(alterations: Map<string, number | null>): Map<QuotaKey, number | null> | string {
  const ops = new Map<QuotaKey, number | null>();
  for (const key of javaHashMapOrder(alterations.keys())) {
    if (!isQuotaKey(key)) return `Invalid configuration key ${key}`;
    const value = alterations.get(key) ?? null;
    if (value !== null) {
      if (value <= 0) return `Quota ${key} must be greater than 0`;
      // Java compares with Long.MAX_VALUE as a double: 2^63.
      if (QUOTA_KEYS[key] === "LONG") {
        if (value > 2 ** 63) return `Proposed value for ${key} is too large for a LONG.`;
        if (value - Math.floor(value) > 1e-16) return `${key} cannot be a fractional value.`;
      }
      if (!Number.isFinite(value)) return `Quota ${key} must be a finite number`;
    }
    ops.set(key, value);
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
    const entities = new Map<string, KafkaEntity>();
    const answers = new Map<string, { errorCode: number; errorMessage: string | null }>();
    const changes: QuotaChange[] = [];
    const refuse = (e: KafkaEntity, errorMessage: string) => answers.set(e.id, { errorCode: ErrorCode.INVALID_REQUEST, errorMessage });
    for (const entry of req.entries) {
      const e = kafkaEntity(entry.entity);
      if (!entities.has(e.id)) entities.set(e.id, e);
      const alterations = new Map<string, number | null>();
      for (const op of entry.ops) {
        if (alterations.has(op.key)) refuse(e, `Duplicate quota key ${op.key} not updating quota for this entity ${kafkaEntityText(e)}`);
        else alterations.set(op.key, op.remove ? null : op.value);
      }
      if (answers.has(e.id)) {
        refuse(e, `Ignoring duplicate entity ${kafkaEntityText(e)}`);
        continue;
      }
      const entity = validEntity(e);
      if (typeof entity === "string") {
        refuse(e, entity);
        continue;
      }
      const ops = validOps(alterations);
      if (typeof ops === "string") {
        refuse(e, ops);
        continue;
      }
      if (ops.size > 0) changes.push({ entity, ops });
      answers.set(e.id, { errorCode: ErrorCode.NONE, errorMessage: null });
    }
    const results: Result[] = javaHashMapOrderBy(entities.keys(), (id) => entities.get(id)!.hash).map((id) => ({
      ...answers.get(id)!,
      entity: entities.get(id)!.components.map(([entityType, entityName]) => ({ entityType, entityName })),
    }));
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
