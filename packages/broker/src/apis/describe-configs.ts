// DescribeConfigs (key 32), versions 0-3.
//
// Request:  resources [resource_type INT8, resource_name STRING, configuration_keys [STRING] (nullable)],
//           include_synonyms BOOL (v1+), include_documentation BOOL (v3+)
// Response: throttle_time_ms INT32, results [error_code INT16, error_message NULLABLE_STRING, resource_type INT8,
//           resource_name STRING, configs [name STRING, value NULLABLE_STRING, read_only BOOL, is_default BOOL (v0),
//           config_source INT8 (v1+), is_sensitive BOOL, synonyms [name, value, source] (v1+),
//           config_type INT8 (v3+), documentation NULLABLE_STRING (v3+)]]
//
// Topic resources list every topic config with its effective value (override or
// default); broker resources (name = node id or "") list the broker's settings.
import { ApiKey, type DeepPartial, ErrorCode, type DescribeConfigsRequest, type DescribeConfigsResponse } from "@kappa/kafka-protocol";
import type { ConfigEntryView } from "../logs.ts";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { brokerResourceProblem, describeBrokerConfigs, ResourceType } from "./configs-common.ts";

type Result = DeepPartial<DescribeConfigsResponse["results"][number]>;

export const describeConfigsApi = defineApi<DescribeConfigsRequest, DescribeConfigsResponse>({
  apiKey: ApiKey.DescribeConfigs,
  name: "DescribeConfigs",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  handle(ctx, req) {
    const b = ctx.broker;
    const toRows = (entries: ConfigEntryView[]): DeepPartial<DescribeConfigsResponse["results"][number]["configs"][number]>[] =>
      entries.map((e) => ({
        name: e.name,
        value: e.value,
        readOnly: e.readOnly,
        isDefault: e.isDefault,
        configSource: e.source,
        isSensitive: e.isSensitive,
        synonyms: req.includeSynonyms ? e.synonyms : [],
        configType: e.configType,
        documentation: req.includeDocumentation ? e.documentation : null,
      }));
    const results: Result[] = req.resources.map((r): Result => {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const keys = r.configurationKeys ?? null;
      const fail = (errorCode: number, errorMessage: string): Result => ({ ...base, errorCode, errorMessage, configs: [] });
      if (r.resourceType === ResourceType.TOPIC) {
        if (!b.authorizer.authorize(ctx.session, "DESCRIBE_CONFIGS", { type: "TOPIC", name: r.resourceName })) {
          return fail(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Topic authorization failed.");
        }
        if (!b.logs.topic(r.resourceName)) return fail(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist.`);
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: toRows(b.logs.describeTopicConfigs(r.resourceName, keys, req.includeDocumentation ?? false)) };
      }
      if (r.resourceType === ResourceType.BROKER) {
        if (!b.authorizer.authorize(ctx.session, "DESCRIBE_CONFIGS", CLUSTER_RESOURCE)) {
          return fail(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Cluster authorization failed.");
        }
        const problem = brokerResourceProblem(ctx, r.resourceName);
        if (problem) return fail(problem.code, problem.message);
        return { ...base, errorCode: ErrorCode.NONE, errorMessage: null, configs: toRows(describeBrokerConfigs(b.config, keys)) };
      }
      return fail(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
    });
    return { throttleTimeMs: 0, results };
  },
});
