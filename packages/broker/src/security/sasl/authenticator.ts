// SASL on a connection, after Kafka's SaslServerAuthenticator:
//
//   SASL listener, before SaslHandshake: ApiVersions and SaslHandshake only
//   after SaslHandshake v1:               SaslAuthenticate only (repeated per mechanism step)
//   authenticated:                        every API; principal = User:<name>
//
// Anything else before authentication closes the connection (the ConnectionGate).
// A failed SaslAuthenticate is answered with SASL_AUTHENTICATION_FAILED (58) and a
// message after connection.failed.authentication.delay.ms (KIP-306), then the
// connection is closed; an unknown mechanism gets UNSUPPORTED_SASL_MECHANISM (33)
// with the enabled list, after the same delay, then the connection is closed.
// Backoff per address and user, and the rate-limited failure log: failed-auth.ts.
// On a PLAINTEXT/SSL listener, or once authenticated, both SASL APIs answer
// ILLEGAL_SASL_STATE (34) as Kafka's KafkaApis does; session_lifetime_ms is 0, so
// clients never re-authenticate (KIP-368 is not implemented).
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import type { Logger } from "../../broker.ts";
import { javaHashMapOrder } from "../../java-hash-order.ts";
import type { ConnectionGate, Session } from "../../session.ts";
import type { ScramCredentialStore } from "../scram/credential-store.ts";
import type { ScramCredential } from "../scram/scram.ts";
import { FailedAuthGuard, type FailedAuthSettings } from "./failed-auth.ts";
import { SaslFailure, isSupportedMechanism, newExchange, type SaslExchange, type SaslMechanismName, type SaslStats } from "./mechanisms.ts";

export interface HandshakeOutcome {
  errorCode: number;
  mechanisms: string[];
  /** Close the connection once the response is written. */
  close: boolean;
}

export interface AuthenticateOutcome {
  errorCode: number;
  errorMessage: string | null;
  authBytes: Buffer;
  close: boolean;
}

/** Kafka's connection.failed.authentication.delay.ms default; the Kappa backoff's defaults (config.ts). */
export const DEFAULT_FAILED_AUTH: FailedAuthSettings = { delayMs: 100, threshold: 5, backoffMs: 1000, maxBackoffMs: 5000 };

export class SaslService {
  private readonly exchanges = new WeakMap<Session, SaslExchange>();
  readonly stats: SaslStats = { dummyVerifications: 0 };
  /** Backoff and the rate-limited failure log (failed-auth.ts). */
  readonly failures: FailedAuthGuard;

  constructor(
    readonly store: ScramCredentialStore,
    /** sasl.enabled.mechanisms, in the order configured (returned by SaslHandshake). */
    readonly enabledMechanisms: readonly SaslMechanismName[],
    private readonly logger: Logger,
    settings: FailedAuthSettings = DEFAULT_FAILED_AUTH,
    /** PLAIN's static users (mechanisms.ts ExchangeOptions.plainUsers). */
    private readonly plainUsers: ReadonlyMap<string, ScramCredential> = new Map(),
  ) {
    this.failures = new FailedAuthGuard(settings, logger);
  }

  /** KIP-306: a failed authentication is answered (and the connection closed) only after this delay. */
  delayFailure(extraMs = 0): Promise<void> {
    const ms = this.failures.settings.delayMs + extraMs;
    return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
  }

  /**
   * Before authentication only ApiVersions and SaslHandshake, then (once a mechanism
   * is chosen) only SaslAuthenticate. Kafka answers a wrong request in the second
   * phase with ILLEGAL_SASL_STATE before closing; we close at once (the client
   * sees the same: a dead connection).
   */
  readonly gate: ConnectionGate = (session, apiKey) => {
    if (session.state !== "authenticating") return "allow";
    if (session.saslMechanism === null) return apiKey === ApiKey.ApiVersions || apiKey === ApiKey.SaslHandshake ? "allow" : "close";
    return apiKey === ApiKey.SaslAuthenticate ? "allow" : "close";
  };

  handshake(session: Session, mechanism: string): HandshakeOutcome {
    if (session.state !== "authenticating" || session.saslMechanism !== null) {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, mechanisms: [], close: false };
    }
    if (!isSupportedMechanism(mechanism) || !this.enabledMechanisms.includes(mechanism)) {
      // Counted with the failed authentications (Kafka's UnsupportedSaslMechanismException is one), not a line each.
      this.failures.recordFailure(session.clientAddress, null, "SaslHandshake", `unsupported SASL mechanism ${JSON.stringify(mechanism)}`);
      return { errorCode: ErrorCode.UNSUPPORTED_SASL_MECHANISM, mechanisms: this.listedMechanisms(), close: true };
    }
    session.saslMechanism = mechanism;
    this.exchanges.set(
      session,
      newExchange(mechanism, this.store, { stats: this.stats, inBackoff: (user) => this.failures.userBackoffLeft(user) > 0, plainUsers: this.plainUsers }),
    );
    return { errorCode: ErrorCode.NONE, mechanisms: this.listedMechanisms(), close: false };
  }

  /** The enabled mechanisms in the order Kafka lists them: its authenticator keeps them in a HashMap filled in sasl.enabled.mechanisms' order. */
  private listedMechanisms(): string[] {
    return javaHashMapOrder(this.enabledMechanisms);
  }

  async authenticate(session: Session, token: Buffer): Promise<AuthenticateOutcome> {
    if (session.state !== "authenticating") {
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: "SaslAuthenticate request received after successful authentication", authBytes: Buffer.alloc(0), close: false };
    }
    const exchange = this.exchanges.get(session);
    if (!exchange) {
      // Unreachable through the gate; kept so a direct call cannot skip the handshake.
      return { errorCode: ErrorCode.ILLEGAL_SASL_STATE, errorMessage: "SaslAuthenticate before SaslHandshake", authBytes: Buffer.alloc(0), close: true };
    }
    try {
      const step = await exchange.evaluate(token);
      if (step.authenticatedUser !== null) {
        this.exchanges.delete(session);
        session.principal = `User:${step.authenticatedUser}`;
        session.state = "ready";
        this.failures.recordSuccess(step.authenticatedUser);
        this.logger.info(`connection from ${session.clientAddress}:${session.clientPort} authenticated as ${session.principal} with ${exchange.mechanism}`);
      }
      return { errorCode: ErrorCode.NONE, errorMessage: null, authBytes: step.challenge, close: false };
    } catch (err) {
      this.exchanges.delete(session);
      if (!(err instanceof SaslFailure)) throw err;
      // Counted, and logged as counts at most once a minute (failed-auth.ts); the reason never holds secrets.
      if (err.refusedInBackoff) this.failures.recordRefusal(session.clientAddress, exchange.claimedUser, exchange.mechanism);
      else this.failures.recordFailure(session.clientAddress, exchange.claimedUser, exchange.mechanism, err.reason);
      // An address in backoff waits out the rest of it as well (failed-auth.ts).
      await this.delayFailure(this.failures.addressBackoffLeft(session.clientAddress));
      return { errorCode: ErrorCode.SASL_AUTHENTICATION_FAILED, errorMessage: err.clientMessage, authBytes: Buffer.alloc(0), close: true };
    }
  }
}
