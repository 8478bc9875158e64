// Server side of the SASL mechanisms, one exchange object per connection.
//
// Failures follow Kafka's split (SaslServerAuthenticator.handleSaslToken):
//  - SaslAuthenticationException: its message goes to the client as is
//    (PLAIN's "Invalid username or password", a mismatching authorization id);
//  - any other SaslException: the client gets only the generic "Authentication
//    failed during authentication due to invalid credentials with SASL mechanism X",
//    so nothing reveals whether the user exists; the reason is logged on the broker.
// Neither message nor log line ever contains a password, proof or key.
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import type { ScramCredentialStore } from "../scram/credential-store.ts";
import {
  MIN_ITERATIONS,
  SCRAM_SHA_256,
  SCRAM_SHA_512,
  ScramFormatError,
  clientSignature,
  formatServerFinal,
  formatServerFirst,
  parseClientFinal,
  parseClientFirst,
  passwordMatches,
  serverNonce,
  serverSignature,
  storedKey,
  xor,
  type ClientFirstMessage,
  type ScramCredential,
  type ScramMechanism,
} from "../scram/scram.ts";

export const SUPPORTED_SASL_MECHANISMS = ["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"] as const;
export type SaslMechanismName = (typeof SUPPORTED_SASL_MECHANISMS)[number];

export function isSupportedMechanism(name: string): name is SaslMechanismName {
  return (SUPPORTED_SASL_MECHANISMS as readonly string[]).includes(name);
}

/** A failure whose `clientMessage` is what the SaslAuthenticate response carries; `reason` is for the broker log. */
export class SaslFailure extends Error {
  override name = "SaslFailure";
  constructor(
    readonly clientMessage: string,
    readonly reason: string,
    /** Refused because the user was in backoff (failed-auth.ts), without checking anything. */
    readonly refusedInBackoff = false,
  ) {
    super(reason);
  }
}

/** What the exchanges need from the broker besides the credentials. */
export interface ExchangeOptions {
  /** Server nonce; replaceable only so that tests can replay RFC 7677's fixed exchange. */
  nonce?: () => string;
  /** True while `user` is in backoff (failed-auth.ts): the attempt is refused without a check. */
  inBackoff?: (user: string) => boolean;
  /** Counts the dummy verifications done for unknown users (tests assert on the code path). */
  stats?: SaslStats;
  /**
   * PLAIN's users: the users given at start-up (`--sasl-admin`, `--sasl-user`,
   * `saslUsers`), each with the SCRAM-SHA-512 credential of its start-up
   * password — Kafka's PLAIN knows only the users of its JAAS configuration,
   * never those created with AlterUserScramCredentials. None: PLAIN logs no one in.
   */
  plainUsers?: ReadonlyMap<string, ScramCredential>;
}

export interface SaslStats {
  /** Password or proof checks run against a dummy credential because the user does not exist. */
  dummyVerifications: number;
}

/**
 * Per-process key for the salts of users that do not exist: the same name gets the
 * same salt on every attempt (as a real user's does), and nobody can compute it.
 * A restart changes these salts, which a patient observer could notice; Kafka
 * itself refuses an unknown SCRAM user at the first message.
 */
const DUMMY_SALT_KEY = randomBytes(32);

function dummyCredential(mech: ScramMechanism, user: string, iterations: number): ScramCredential {
  const salt = createHmac("sha256", DUMMY_SALT_KEY).update(`${mech.name}\u0000${user}`).digest();
  // Keys nobody can match: no proof or password verifies against them.
  return { salt, iterations, storedKey: randomBytes(mech.keyLength), serverKey: randomBytes(mech.keyLength) };
}

/** Kafka's wording for every SaslException (the details stay on the broker). */
export function genericFailure(mechanism: string, reason: string): SaslFailure {
  return new SaslFailure(`Authentication failed during authentication due to invalid credentials with SASL mechanism ${mechanism}`, reason);
}

export interface SaslStep {
  /** Bytes for SaslAuthenticate's auth_bytes (empty when the mechanism has nothing to say). */
  challenge: Buffer;
  /** Set once the exchange succeeded: the authenticated user name. */
  authenticatedUser: string | null;
}

export interface SaslExchange {
  readonly mechanism: SaslMechanismName;
  /** The user name the client gave, once a token has named one (for backoff and logs). */
  readonly claimedUser: string | null;
  /** Throws SaslFailure; after a failure or success, any further token is an error. */
  evaluate(token: Buffer): Promise<SaslStep>;
}

export function newExchange(mechanism: SaslMechanismName, store: ScramCredentialStore, options: ExchangeOptions = {}): SaslExchange {
  switch (mechanism) {
    case "PLAIN":
      return new PlainExchange(store, options);
    case "SCRAM-SHA-256":
      return new ScramExchange(SCRAM_SHA_256, store, options);
    case "SCRAM-SHA-512":
      return new ScramExchange(SCRAM_SHA_512, store, options);
  }
}

function backoffFailure(mechanism: string, clientMessage: string, user: string): SaslFailure {
  return new SaslFailure(clientMessage, `${mechanism}: user ${user} is in backoff after failed authentications`, true);
}

/**
 * SASL/PLAIN (RFC 4616): one message `authzid NUL authcid NUL passwd`, checked
 * as Kafka's PlainServerCallbackHandler does against the static users only
 * (ExchangeOptions.plainUsers: the start-up users and their start-up
 * passwords, kept as a SCRAM-SHA-512 credential: StoredKey derived from the
 * given password with its salt and iterations). A user created or changed
 * with AlterUserScramCredentials logs in with SCRAM only, as on Kafka.
 * Messages follow Kafka's PlainSaslServer.
 */
class PlainExchange implements SaslExchange {
  readonly mechanism = "PLAIN" as const;
  claimedUser: string | null = null;
  private done = false;

  constructor(
    private readonly store: ScramCredentialStore,
    private readonly options: ExchangeOptions,
  ) {}

  async evaluate(token: Buffer): Promise<SaslStep> {
    if (this.done) throw genericFailure("PLAIN", "PLAIN token received after the exchange finished");
    this.done = true;
    // Kafka splits on NUL and requires exactly three tokens.
    const parts = token.toString("utf8").split("\u0000");
    if (parts.length !== 3) throw genericFailure("PLAIN", `Invalid SASL/PLAIN response: expected 3 tokens, got ${parts.length}`);
    const [authzid = "", user = "", password = ""] = parts;
    if (user === "") throw new SaslFailure("Authentication failed: username not specified", "PLAIN without user name");
    if (password === "") throw new SaslFailure("Authentication failed: password not specified", `PLAIN without password for user ${user}`);
    if (authzid !== "" && authzid !== user) {
      throw new SaslFailure("Authentication failed: Client requested an authorization id that is different from username", `PLAIN authzid differs from user ${user}`);
    }
    this.claimedUser = user;
    const invalidMessage = "Authentication failed: Invalid username or password";
    if (this.options.inBackoff?.(user)) throw backoffFailure("PLAIN", invalidMessage, user);
    const invalid = new SaslFailure(invalidMessage, `PLAIN: invalid password or unknown user ${user}`);
    const cred = this.options.plainUsers?.get(user);
    if (!cred) {
      // The same PBKDF2 as for a real user, so that an unknown user's answer takes as long.
      if (this.options.stats) this.options.stats.dummyVerifications++;
      const iterations = this.options.plainUsers?.values().next().value?.iterations ?? MIN_ITERATIONS;
      await passwordMatches(SCRAM_SHA_512, dummyCredential(SCRAM_SHA_512, user, iterations), password);
      throw invalid;
    }
    if (!(await passwordMatches(SCRAM_SHA_512, cred, password))) throw invalid;
    return { challenge: Buffer.alloc(0), authenticatedUser: user };
  }
}

type ScramState =
  | { step: "first" }
  | { step: "final"; first: ClientFirstMessage; serverFirst: string; nonce: string; credential: ScramCredential; dummy: boolean }
  | { step: "over" };

/**
 * SCRAM server (Kafka's ScramSaslServer): client-first → server-first → client-final → server-final.
 * A user without a credential gets a server-first with a dummy salt and the usual
 * iteration count, and the proof is checked against a dummy key, so the exchange
 * looks and takes the same as a wrong password (Kafka refuses such a user at the
 * first message, which tells a client which user names exist).
 */
class ScramExchange implements SaslExchange {
  readonly mechanism: SaslMechanismName;
  claimedUser: string | null = null;
  private state: ScramState = { step: "first" };
  private readonly makeNonce: () => string;

  constructor(
    private readonly mech: ScramMechanism,
    private readonly store: ScramCredentialStore,
    private readonly options: ExchangeOptions,
  ) {
    this.mechanism = mech.name;
    this.makeNonce = options.nonce ?? serverNonce;
  }

  async evaluate(token: Buffer): Promise<SaslStep> {
    const state = this.state;
    // Any failure ends the exchange: a second attempt on the same connection is refused
    // (the connection is closed anyway), and a replayed final message cannot reuse the nonce.
    this.state = { step: "over" };
    try {
      if (state.step === "first") return this.first(token);
      if (state.step === "final") return this.final(token, state);
      throw genericFailure(this.mech.name, "SCRAM token received after the exchange finished");
    } catch (err) {
      if (err instanceof ScramFormatError) throw genericFailure(this.mech.name, `malformed SCRAM message: ${err.message}`);
      throw err;
    }
  }

  private first(token: Buffer): SaslStep {
    const first = parseClientFirst(token);
    this.claimedUser = first.userName;
    if (this.options.inBackoff?.(first.userName)) throw backoffFailure(this.mech.name, genericFailure(this.mech.name, "").clientMessage, first.userName);
    // Kafka supports only the `tokenauth` extension (delegation tokens), which this broker does not issue.
    if (first.extensions.get("tokenauth") === "true") throw genericFailure(this.mech.name, "delegation-token authentication is not supported");
    if (first.authorizationId !== "" && first.authorizationId !== first.userName) {
      throw new SaslFailure("Authentication failed: Client requested an authorization id that is different from username", `SCRAM authzid differs from user ${first.userName}`);
    }
    const stored = this.store.get(first.userName, this.mech);
    const credential = stored ?? dummyCredential(this.mech, first.userName, this.store.typicalIterations(this.mech));
    if (credential.iterations < MIN_ITERATIONS) {
      throw genericFailure(this.mech.name, `Iterations ${credential.iterations} is less than the minimum ${MIN_ITERATIONS} for ${this.mech.name}`);
    }
    const nonce = first.nonce + this.makeNonce();
    const serverFirst = formatServerFirst(nonce, credential.salt, credential.iterations);
    this.state = { step: "final", first, serverFirst, nonce, credential, dummy: stored === undefined };
    return { challenge: Buffer.from(serverFirst, "utf8"), authenticatedUser: null };
  }

  private final(token: Buffer, s: Extract<ScramState, { step: "final" }>): SaslStep {
    const fin = parseClientFinal(token);
    // Kafka 4.x (ScramSaslServer): the nonce must be exactly the client nonce + server
    // nonce of the server-first message. Kafka 3.8.1-3.9 accepted one that merely ended
    // with it, because librdkafka before 2.6.1 (Debian bookworm's kcat uses 2.0.2) sends
    // client nonce + full nonce (confluentinc/librdkafka#4895); those clients fail SCRAM
    // here as they do against Kafka 4.x, and use PLAIN or a newer librdkafka instead.
    if (fin.nonce !== s.nonce) throw genericFailure(this.mech.name, "Invalid client nonce in the final client message.");
    // RFC 5802 §5.1: c= must carry the gs2 header of the client-first message (no channel
    // binding data). Kafka only requires c= to be base64 (the proof covers it); this is stricter.
    if (!fin.channelBinding.equals(Buffer.from(s.first.gs2Header, "utf8"))) {
      throw genericFailure(this.mech.name, "channel binding (c=) does not match the client-first gs2 header");
    }
    if (fin.proof.length !== this.mech.keyLength) throw genericFailure(this.mech.name, `client proof has ${fin.proof.length} bytes`);
    const authMessage = `${s.first.bare},${s.serverFirst},${fin.withoutProof}`;
    const computedClientKey = xor(fin.proof, clientSignature(this.mech, s.credential.storedKey, authMessage));
    const computedStoredKey = storedKey(this.mech, computedClientKey);
    if (s.dummy && this.options.stats) this.options.stats.dummyVerifications++;
    if (!timingSafeEqual(computedStoredKey, s.credential.storedKey) || s.dummy) {
      throw genericFailure(this.mech.name, `Invalid client credentials for user ${s.first.userName}${s.dummy ? " (no such user)" : ""}`);
    }
    const signature = serverSignature(this.mech, s.credential.serverKey, authMessage);
    return { challenge: Buffer.from(formatServerFinal(signature), "utf8"), authenticatedUser: s.first.userName };
  }
}
