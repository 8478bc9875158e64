// DeleteTopics (key 20), versions 0-3.
//
// Request:  topic_names [STRING], timeout_ms INT32
// Response: throttle_time_ms INT32 (v1+), responses [name STRING, error_code INT16]
import { ApiKey, type DeepPartial, ErrorCode, type DeleteTopicsRequest, type DeleteTopicsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { errorOf } from "./common.ts";

export const deleteTopicsApi = defineApi<DeleteTopicsRequest, DeleteTopicsResponse>({
  apiKey: ApiKey.DeleteTopics,
  name: "DeleteTopics",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  async handle(ctx, req) {
    const b = ctx.broker;
    const responses: DeepPartial<DeleteTopicsResponse["responses"][number]>[] = [];
    // ControllerApis.deleteTopics: DELETE on CLUSTER allows any topic; otherwise a topic
    // the principal may not DESCRIBE is TOPIC_AUTHORIZATION_FAILED whether or not it
    // exists (existence is not revealed), then DELETE on the TOPIC is needed.
    const clusterDelete = b.authorizer.authorize(ctx.session, "DELETE", CLUSTER_RESOURCE);
    for (const name of req.topicNames ?? []) {
      const resource = { type: "TOPIC", name } as const;
      if (!b.config["delete.topic.enable"]) {
        b.logger.info(`DeleteTopics of ${name} refused: delete.topic.enable is false`);
        responses.push({ name, errorCode: ErrorCode.TOPIC_DELETION_DISABLED });
        continue;
      }
      if (!clusterDelete && !b.authorizer.authorize(ctx.session, "DESCRIBE", resource)) {
        responses.push({ name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
        continue;
      }
      if (!b.logs.topic(name)) {
        responses.push({ name, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION });
        continue;
      }
      if (!clusterDelete && !b.authorizer.authorize(ctx.session, "DELETE", resource)) {
        responses.push({ name, errorCode: ErrorCode.TOPIC_AUTHORIZATION_FAILED });
        continue;
      }
      try {
        await b.logs.deleteTopic(name);
        b.logger.info(`deleted topic ${name}`);
        responses.push({ name, errorCode: ErrorCode.NONE });
      } catch (err) {
        responses.push({ name, errorCode: errorOf(ctx, err, `deleting topic ${name}`).code });
      }
    }
    return { throttleTimeMs: 0, responses };
  },
});
