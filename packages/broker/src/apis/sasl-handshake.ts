// SaslHandshake (key 17), advertised 0-1, served 1.
//
// Request:  mechanism STRING
// Response: error_code INT16, mechanisms [STRING]
//
// BROKER-SPEC §1/§7.4: the advertised range must include 0, or librdkafka 2.0.2
// skips the handshake and sends raw SASL bytes. Both kafkajs 2.2.4 and librdkafka
// 2.0.2 send v1, after which tokens travel in SaslAuthenticate requests. v0 (raw
// size-prefixed tokens outside Kafka framing, for pre-1.0 clients) is not served:
// a v0 request closes the connection, like any version outside the served range.
import { ApiKey, type SaslHandshakeRequest, type SaslHandshakeResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const saslHandshakeApi = defineApi<SaslHandshakeRequest, SaslHandshakeResponse>({
  apiKey: ApiKey.SaslHandshake,
  name: "SaslHandshake",
  advertised: { min: 0, max: 1 },
  implemented: { min: 1, max: 1 },
  handle(ctx, req) {
    const outcome = ctx.broker.sasl.handshake(ctx.session, req.mechanism);
    if (outcome.close) ctx.broker.closeAfterResponse(ctx.session);
    return { errorCode: outcome.errorCode, mechanisms: outcome.mechanisms };
  },
});
