// IncrementalAlterConfigs (key 44), versions 0-1 (v1 is flexible).
//
// Request:  resources [resource_type INT8, resource_name STRING,
//                      configs [name STRING, config_operation INT8, value NULLABLE_STRING]],
//           validate_only BOOL
// Response: throttle_time_ms INT32, responses [error_code INT16, error_message NULLABLE_STRING,
//           resource_type INT8, resource_name STRING]
//
// Operations (AlterConfigOp): 0 SET, 1 DELETE (back to default), 2 APPEND and
// 3 SUBTRACT (list-valued configs only, i.e. cleanup.policy). The result is
// validated as a whole before anything is stored.
import { ApiKey, type DeepPartial, ErrorCode, type IncrementalAlterConfigsRequest, type IncrementalAlterConfigsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { logRefusal } from "./common.ts";
import { applyTopicOverrides, brokerConfigChangeProblem, ResourceType } from "./configs-common.ts";

type Result = DeepPartial<IncrementalAlterConfigsResponse["responses"][number]>;

const LIST_CONFIGS = new Set(["cleanup.policy"]);
const DEFAULT_LISTS: Record<string, string> = { "cleanup.policy": "delete" };

export const incrementalAlterConfigsApi = defineApi<IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse>({
  apiKey: ApiKey.IncrementalAlterConfigs,
  name: "IncrementalAlterConfigs",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const responses: Result[] = [];
    resources: for (const r of req.resources) {
      const base = { resourceType: r.resourceType, resourceName: r.resourceName };
      const done = (errorCode: number, errorMessage: string | null): void => {
        logRefusal(ctx, `IncrementalAlterConfigs of ${base.resourceName}`, errorCode, errorMessage);
        responses.push({ ...base, errorCode, errorMessage });
      };
      if (r.resourceType === ResourceType.BROKER) {
        // As Kafka: the broker id and the settings set (DELETE aside) are checked before authorization.
        const problem = brokerConfigChangeProblem(ctx, r.resourceName, r.configs.filter((c) => c.configOperation !== 1).map((c) => c.name));
        if (problem) {
          done(problem.code, problem.message);
          continue;
        }
        if (!b.authorizer.authorize(ctx.session, "ALTER_CONFIGS", CLUSTER_RESOURCE)) {
          done(ErrorCode.CLUSTER_AUTHORIZATION_FAILED, "Authorization failed.");
          continue;
        }
        done(ErrorCode.INVALID_CONFIG, `Cannot update these configs dynamically: ${r.configs.map((c) => c.name).join(", ")}`);
        continue;
      }
      if (r.resourceType !== ResourceType.TOPIC) {
        done(ErrorCode.INVALID_REQUEST, `Unsupported resource type ${r.resourceType}`);
        continue;
      }
      if (!b.authorizer.authorize(ctx.session, "ALTER_CONFIGS", { type: "TOPIC", name: r.resourceName })) {
        done(ErrorCode.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
        continue;
      }
      if (!b.logs.topic(r.resourceName)) {
        done(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `Topic ${r.resourceName} does not exist.`);
        continue;
      }
      const seen = new Set<string>();
      const next: Record<string, string> = { ...b.logs.topicConfigOverrides(r.resourceName) };
      for (const c of r.configs) {
        if (seen.has(c.name)) {
          done(ErrorCode.INVALID_REQUEST, `Error due to duplicate config keys : ${c.name}`);
          continue resources;
        }
        seen.add(c.name);
        switch (c.configOperation) {
          case 0: // SET
            if (c.value === null) {
              done(ErrorCode.INVALID_REQUEST, `Null value not supported for : ${c.name}`);
              continue resources;
            }
            next[c.name] = c.value;
            break;
          case 1: // DELETE
            delete next[c.name];
            break;
          case 2: // APPEND
          case 3: {
            // SUBTRACT
            if (!LIST_CONFIGS.has(c.name)) {
              done(ErrorCode.INVALID_CONFIG, `Config value append is not allowed for config key: ${c.name}`);
              continue resources;
            }
            const current = (next[c.name] ?? DEFAULT_LISTS[c.name] ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
            const items = (c.value ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "");
            const result = c.configOperation === 2 ? [...current, ...items.filter((i) => !current.includes(i))] : current.filter((i) => !items.includes(i));
            next[c.name] = result.join(",");
            break;
          }
          default:
            done(ErrorCode.INVALID_REQUEST, `Unknown config operation ${c.configOperation} for ${c.name}`);
            continue resources;
        }
      }
      const result = await applyTopicOverrides(ctx, r.resourceName, next, req.validateOnly);
      done(result.code, result.message);
    }
    return { throttleTimeMs: 0, responses };
  },
});
