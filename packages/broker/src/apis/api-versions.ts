// ApiVersions (key 18), versions 0-4.
//
// Request v3+: client_software_name COMPACT_STRING, client_software_version COMPACT_STRING, TAG_BUFFER
// Response:    error_code INT16, api_keys [api_key INT16, min_version INT16, max_version INT16],
//              throttle_time_ms INT32 (v1+), TAG_BUFFER (v3+): tag 0 SupportedFeatures,
//              1 FinalizedFeaturesEpoch, 2 FinalizedFeatures (src/features.ts)
//
// The api_keys array is the handler registry's advertised ranges. v4 (KIP-1022) has
// v3's fields; it only lets SupportedFeatures carry features whose minimum is 0. A
// version above 4 never reaches this handler: the connection answers it with the
// v0-format UNSUPPORTED_VERSION body (BROKER-SPEC §2). From v3 the client's
// software name and version must match Kafka's pattern (ApiVersionsRequest.isValid);
// otherwise, as Kafka, INVALID_REQUEST with no api keys.
import { ApiKey, ErrorCode, type ApiVersionsRequest, type ApiVersionsResponse } from "@kappa/kafka-protocol";
import { FINALIZED_FEATURES, FINALIZED_FEATURES_EPOCH, supportedFeaturesFor } from "../features.ts";
import { defineApi } from "../registry.ts";

/** Kafka's ApiVersionsRequest.SOFTWARE_NAME_VERSION_PATTERN. */
const SOFTWARE_NAME_VERSION = /^[a-zA-Z0-9](?:[a-zA-Z0-9\-.]*[a-zA-Z0-9])?$/;

export const apiVersionsApi = defineApi<ApiVersionsRequest, ApiVersionsResponse>({
  apiKey: ApiKey.ApiVersions,
  name: "ApiVersions",
  advertised: { min: 0, max: 4 },
  implemented: { min: 0, max: 4 },
  handle(ctx, req) {
    if (ctx.apiVersion >= 3 && !(SOFTWARE_NAME_VERSION.test(req.clientSoftwareName) && SOFTWARE_NAME_VERSION.test(req.clientSoftwareVersion))) {
      return { errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0, supportedFeatures: [], finalizedFeaturesEpoch: -1n, finalizedFeatures: [], zkMigrationReady: false };
    }
    return {
      errorCode: ErrorCode.NONE,
      apiKeys: ctx.broker.registry.advertisedVersions(),
      throttleTimeMs: 0,
      supportedFeatures: supportedFeaturesFor(ctx.apiVersion),
      finalizedFeaturesEpoch: FINALIZED_FEATURES_EPOCH,
      finalizedFeatures: [...FINALIZED_FEATURES],
      zkMigrationReady: false,
    };
  },
});
