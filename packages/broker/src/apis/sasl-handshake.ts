// SaslHandshake (key 17), advertised and served 0-1.
//
// Request:  mechanism STRING
// Response: error_code INT16, mechanisms [STRING]
//
// BROKER-SPEC §1/§7.4: the advertised range must include 0, or librdkafka 2.0.2
// skips the handshake and sends raw SASL bytes. Both kafkajs 2.2.4 and librdkafka
// 2.0.2 send v1, after which tokens travel in SaslAuthenticate requests. After a
// successful v0 (pre-1.0 clients) the tokens travel raw: each is a size-prefixed
// frame without a Kafka header, answered with a size-prefixed challenge; a failed
// exchange closes the connection without an answer, as Kafka does (raw tokens
// have no error field). See net/connection.ts.
import { ApiKey, type SaslHandshakeRequest, type SaslHandshakeResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";

export const saslHandshakeApi = defineApi<SaslHandshakeRequest, SaslHandshakeResponse>({
  apiKey: ApiKey.SaslHandshake,
  name: "SaslHandshake",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  async handle(ctx, req) {
    const outcome = ctx.broker.sasl.handshake(ctx.session, req.mechanism);
    if (outcome.close) {
      // Kafka's UnsupportedSaslMechanismException is an AuthenticationException: its close is delayed too (KIP-306).
      await ctx.broker.sasl.delayFailure(ctx.broker.sasl.failures.addressBackoffLeft(ctx.session.clientAddress));
      ctx.broker.closeAfterResponse(ctx.session);
    }
    else if (ctx.apiVersion === 0 && outcome.errorCode === 0) ctx.session.rawSaslTokens = true;
    return { errorCode: outcome.errorCode, mechanisms: outcome.mechanisms };
  },
});
