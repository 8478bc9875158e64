// Client quota entities and keys (KIP-55, KIP-546), as Apache Kafka names them.
//
// An entity is a set of (entity type, name) components; a null name is that
// type's default (`<default>` in kafka-configs.sh). This broker serves the
// `user` and `client-id` entity types and their combination; `ip` entities
// (KIP-612 connection creation rates) are refused.

export type QuotaEntityType = "user" | "client-id";
export const QUOTA_ENTITY_TYPES: readonly QuotaEntityType[] = ["user", "client-id"];

/** A quota entity: per type, a name or null for the default. At least one type is present. */
export interface QuotaEntity {
  user?: string | null;
  "client-id"?: string | null;
}

export type QuotaKey = "producer_byte_rate" | "consumer_byte_rate" | "request_percentage" | "controller_mutation_rate";

/** Kafka's quota config keys for user and client-id entities, with their ConfigDef type. */
export const QUOTA_KEYS: Readonly<Record<QuotaKey, "LONG" | "DOUBLE">> = {
  producer_byte_rate: "LONG",
  consumer_byte_rate: "LONG",
  request_percentage: "DOUBLE",
  controller_mutation_rate: "DOUBLE",
};

export function isQuotaKey(key: string): key is QuotaKey {
  return Object.hasOwn(QUOTA_KEYS, key);
}

/** A stable text key for an entity (map keys and the store file). */
export function entityKey(e: QuotaEntity): string {
  return QUOTA_ENTITY_TYPES.filter((t) => e[t] !== undefined)
    .map((t) => `${t}=${e[t] === null ? "<default>" : `:${e[t]}`}`)
    .join(",");
}

/** The entity's components in wire form, user first (Kafka lists them in its entity map order). */
export function entityComponents(e: QuotaEntity): Array<{ entityType: QuotaEntityType; entityName: string | null }> {
  return QUOTA_ENTITY_TYPES.filter((t) => e[t] !== undefined).map((t) => ({ entityType: t, entityName: e[t] ?? null }));
}

export function describeEntity(e: QuotaEntity): string {
  return entityComponents(e)
    .map((c) => `${c.entityType}=${c.entityName === null ? "<default>" : JSON.stringify(c.entityName)}`)
    .join(", ");
}

export interface EntityProblem {
  message: string;
}

/**
 * Builds an entity from wire components, or says why it is invalid (every
 * problem is INVALID_REQUEST in Kafka's ClientQuotaControlManager).
 */
export function entityFromComponents(components: ReadonlyArray<{ entityType: string; entityName: string | null }>): QuotaEntity | EntityProblem {
  if (components.length === 0) return { message: "Invalid empty client quota entity" };
  const entity: QuotaEntity = {};
  for (const c of components) {
    if (c.entityType === "ip") return { message: "ip quotas (connection_creation_rate) are not supported by this broker" };
    if (c.entityType !== "user" && c.entityType !== "client-id") return { message: `Unhandled client quota entity type: ${c.entityType}` };
    if (entity[c.entityType] !== undefined) return { message: `Entity type ${c.entityType} appears more than once in the entity` };
    if (c.entityName === "") return { message: `Empty ${c.entityType} name; use null for the default` };
    entity[c.entityType] = c.entityName;
  }
  return entity;
}

export function isEntityProblem(x: QuotaEntity | EntityProblem): x is EntityProblem {
  return "message" in x;
}
