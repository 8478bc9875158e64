// SaslAuthenticate (key 36), versions 0-1.
//
// Request:  auth_bytes BYTES
// Response: error_code INT16, error_message NULLABLE_STRING, auth_bytes BYTES,
//           session_lifetime_ms INT64 (v1+)
//
// Carries one SASL token each way (src/security/sasl). On failure the response
// holds SASL_AUTHENTICATION_FAILED and Kafka's message, and the connection is
// closed after it is written. session_lifetime_ms is always 0: a positive value
// would make kafkajs re-authenticate (BROKER-SPEC §5).
//
// BROKER-SPEC §1 pins the range to 0-1 (kafkajs sends v1, librdkafka 2.0.2 v0);
// Apache Kafka 3.x also has v2, the flexible encoding of the same fields.
import { ApiKey, type SaslAuthenticateRequest, type SaslAuthenticateResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const saslAuthenticateApi = defineApi<SaslAuthenticateRequest, SaslAuthenticateResponse>({
  apiKey: ApiKey.SaslAuthenticate,
  name: "SaslAuthenticate",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const outcome = await ctx.broker.sasl.authenticate(ctx.session, req.authBytes);
    if (outcome.close) ctx.broker.closeAfterResponse(ctx.session);
    return { errorCode: outcome.errorCode, errorMessage: outcome.errorMessage, authBytes: outcome.authBytes, sessionLifetimeMs: 0n };
  },
});
