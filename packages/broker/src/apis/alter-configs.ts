// AlterConfigs (key 33), versions 0-1.
//
// Request:  resources [resource_type INT8, resource_name STRING, configs [name STRING, value NULLABLE_STRING]],
//           validate_only BOOL
// Response: throttle_time_ms INT32, responses [error_code INT16, error_message NULLABLE_STRING,
//           resource_type INT8, resource_name STRING]
//
// Legacy AlterConfigs replaces ALL of a topic's overrides with the given set
// (KIP-339; BROKER-SPEC §3 marks this unverified): configs left out revert to defaults.
// Broker settings are static here, so altering a BROKER resource is refused.
import { ApiKey, type DeepPartial, ErrorCode, type AlterConfigsRequest, type AlterConfigsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { logRefusal } from "./common.ts";
import { applyTopicOverrides, brokerConfigChangeProblem, ResourceType } from "./configs-common.ts";

type Result = DeepPartial<AlterConfigsResponse["responses"][number]>;

export const alterConfigsApi = defineApi<AlterConfigsRequest, AlterConfigsResponse>({
  apiKey: ApiKey.AlterConfigs,
  name: "AlterConfigs",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const responses: Result[] = [];
    for (const r of req.resources) {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const done = (errorCode: number, errorMessage: string | null): void => {
        logRefusal(ctx, `AlterConfigs of ${base.resourceName}`, errorCode, errorMessage);
        responses.push({ ...base, errorCode, errorMessage });
      };
      if (r.resourceType === ResourceType.TOPIC) {
        if (!b.authorizer.authorize(ctx.session, "ALTER_CONFIGS", { type: "TOPIC", name: r.resourceName })) {
          done(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
          continue;
        }
        if (!b.logs.topic(r.resourceName)) {
          done(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist.`);
          continue;
        }
        const overrides: Record<string, string> = {};
        const nulls = r.configs.filter((c) => c.value === null).map((c) => c.name);
        if (nulls.length > 0) {
          done(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${nulls.join(", ")}`);
          continue;
        }
        for (const c of r.configs) if (c.value !== null) overrides[c.name] = c.value;
        const result = await applyTopicOverrides(ctx, r.resourceName, overrides, req.validateOnly);
        done(result.code, result.message);
      } else if (r.resourceType === ResourceType.BROKER) {
        // As Kafka: the broker id and the settings are checked before authorization.
        const problem = brokerConfigChangeProblem(ctx, r.resourceName, r.configs.map((c) => c.name));
        if (problem) {
          done(problem.code, problem.message);
          continue;
        }
        if (!b.authorizer.authorize(ctx.session, "ALTER_CONFIGS", CLUSTER_RESOURCE)) {
          done(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Authorization failed.");
          continue;
        }
        done(ErrorCode.INVALID_CONFIG, `Cannot update these configs dynamically: ${r.configs.map((c) => c.name).join(", ")}. Broker settings are static on this broker; restart it with new settings.`);
      } else {
        done(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
      }
    }
    return { throttleTimeMs: 0, responses };
  },
});
