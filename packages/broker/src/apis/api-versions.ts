// ApiVersions (key 18), versions 0-3.
//
// Request v3+: client_software_name COMPACT_STRING, client_software_version COMPACT_STRING, TAG_BUFFER
// Response:    error_code INT16, api_keys [api_key INT16, min_version INT16, max_version INT16],
//              throttle_time_ms INT32 (v1+), TAG_BUFFER (v3+; SupportedFeatures etc. omitted)
//
// The api_keys array is the handler registry's advertised ranges. A version above 3
// never reaches this handler: the connection answers it with the v0-format
// UNSUPPORTED_VERSION body (BROKER-SPEC §2).
import { ApiKey, ErrorCode, type ApiVersionsRequest, type ApiVersionsResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const apiVersionsApi = defineApi<ApiVersionsRequest, ApiVersionsResponse>({
  apiKey: ApiKey.ApiVersions,
  name: "ApiVersions",
  advertised: { min: 0, max: 3 },
  implemented: { min: 0, max: 3 },
  handle(ctx) {
    return {
      errorCode: ErrorCode.NONE,
      apiKeys: ctx.broker.registry.advertisedVersions(),
      throttleTimeMs: 0,
    };
  },
});
