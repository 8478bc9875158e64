// DescribeClientQuotas (key 48), versions 0-1 (v1 flexible). KIP-546.
//
// Request:  components [entity_type STRING, match_type INT8, match NULLABLE_STRING], strict BOOLEAN
// Response: throttle_time_ms INT32, error_code INT16, error_message NULLABLE_STRING,
//           entries [entity [entity_type STRING, entity_name NULLABLE_STRING],
//                    values [key STRING, value FLOAT64]] (nullable)
//
// Filter (Kafka's ClientQuotasImage.describe): each component names an entity
// type and how its name must match: 0 exact (`match` is the name), 1 the
// default (null name), 2 "specified": KIP-546 words it as any non-default
// name, but Kafka's ClientQuotasImage only checks that the entity has the
// type, so the default (null) name matches too — this broker does as Kafka
// does (the oracle run showed `<default>` client ids there). Every component must
// match; with `strict` the entity has exactly the filter's types, without it
// it may have more (no components and not strict = every entity). Refused with
// the top-level error and null entries: an empty or repeated entity type, an
// unknown match type, a match string where none belongs or none where one
// does (INVALID_REQUEST); an entity type other than user, client-id, ip
// (UNSUPPORTED_VERSION); ip together with user or client-id (INVALID_REQUEST).
// Needs DESCRIBE_CONFIGS on CLUSTER, else CLUSTER_AUTHORIZATION_FAILED.
import { ApiKey, ErrorCode, type DeepPartial, type DescribeClientQuotasRequest, type DescribeClientQuotasResponse } from "@kappa/kafka-protocol";
import { javaHashMapOrder } from "../java-hash-order.ts";
import { entityComponents, type QuotaEntity } from "../quotas/entity.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";

const MATCH_EXACT = 0;
const MATCH_DEFAULT = 1;
const MATCH_SPECIFIED = 2;

type Filter = Map<string, { matchType: number; match: string | null }>;

function refuse(errorCode: number, errorMessage: string): DeepPartial<DescribeClientQuotasResponse> {
  return { throttleTimeMs: 0, errorCode, errorMessage, entries: null };
}

function parseFilter(req: DescribeClientQuotasRequest): Filter | DeepPartial<DescribeClientQuotasResponse> {
  const filter: Filter = new Map();
  for (const c of req.components) {
    if (c.entityType === "") return refuse(ErrorCode.INVALID_REQUEST, "Invalid empty entity type.");
    if (filter.has(c.entityType)) return refuse(ErrorCode.INVALID_REQUEST, `Entity type ${c.entityType} cannot appear more than once in the filter.`);
    if (c.entityType !== "user" && c.entityType !== "client-id" && c.entityType !== "ip") {
      return refuse(ErrorCode.UNSUPPORTED_VERSION, `Unsupported entity type ${c.entityType}`);
    }
    switch (c.matchType) {
      case MATCH_EXACT:
        if (c.match === null) return refuse(ErrorCode.INVALID_REQUEST, "Request specified MATCH_TYPE_EXACT, but set match string to null.");
        break;
      case MATCH_DEFAULT:
      case MATCH_SPECIFIED:
        if (c.match !== null) return refuse(ErrorCode.INVALID_REQUEST, `Request specified ${c.matchType === MATCH_DEFAULT ? "MATCH_TYPE_DEFAULT" : "MATCH_TYPE_SPECIFIED"}, but also specified a match string.`);
        break;
      default:
        return refuse(ErrorCode.INVALID_REQUEST, `Unknown match type ${c.matchType}`);
    }
    filter.set(c.entityType, { matchType: c.matchType, match: c.match });
  }
  if (filter.has("ip") && (filter.has("user") || filter.has("client-id"))) {
    return refuse(ErrorCode.INVALID_REQUEST, "Invalid entity filter component combination, IP filter component should not be used with user or clientId filter component.");
  }
  return filter;
}

/** Kafka keeps an entity's components in a HashMap (ClientQuotasImage): its iteration order, e.g. client-id before user. */
function kafkaComponentOrder<T extends { entityType: string }>(components: T[]): T[] {
  const order = javaHashMapOrder(components.map((c) => c.entityType));
  return [...components].sort((x, y) => order.indexOf(x.entityType) - order.indexOf(y.entityType));
}

function matches(entity: QuotaEntity, filter: Filter, strict: boolean): boolean {
  const types = entityComponents(entity);
  if (strict && types.length !== filter.size) return false;
  for (const [type, f] of filter) {
    if (type === "ip") return false; // this broker keeps no ip entities
    const name = entity[type as "user" | "client-id"];
    if (name === undefined) return false;
    if (f.matchType === MATCH_EXACT && name !== f.match) return false;
    if (f.matchType === MATCH_DEFAULT && name !== null) return false;
    // MATCH_SPECIFIED: the type is present (checked above), whatever the name — Kafka's ClientQuotasImage.
  }
  return true;
}

export const describeClientQuotasApi = defineApi<DescribeClientQuotasRequest, DescribeClientQuotasResponse>({
  apiKey: ApiKey.DescribeClientQuotas,
  name: "DescribeClientQuotas",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  handle(ctx, req) {
    const b = ctx.broker;
    if (!b.authorizer.authorize(ctx.session, "DESCRIBE_CONFIGS", CLUSTER_RESOURCE)) {
      return refuse(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
    }
    const filter = parseFilter(req);
    if (!(filter instanceof Map)) return filter;
    const entries = b.quotas.store
      .all()
      .filter((e) => matches(e.entity, filter, req.strict))
      .map((e) => ({
        entity: kafkaComponentOrder(entityComponents(e.entity)),
        values: [...e.values].map(([key, value]) => ({ key, value })),
      }));
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, entries };
  },
});
