// Helpers for the authorization tests: every principal is a real SCRAM user
// and every connection authenticates, as a deployment started with
// --sasl-admin would be used.
import { createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from "node:crypto";
import { ApiKey, ErrorCode, decodeResponse, type ApiKeyWithBody, type RequestInput, type ResponseBodies } from "@kappa/kafka-protocol";
import { applySaslAdmin, resolveConfig, type BrokerOptions } from "../src/index.ts";
import type { ScramMechanism } from "../src/security/scram/scram.ts";
import { RawClient, awaitCoordinator, waitFor } from "./helpers.ts";
import type { kafkaClient } from "./helpers.ts";
import { SCRAM_SHA_512, saslKafka, scramClientFinal, upsertion } from "./sasl-helpers.ts";

export interface User {
  name: string;
  password: string;
}

export function user(name: string): User {
  return { name, password: `${name}-${randomBytes(8).toString("hex")}` };
}

/**
 * The settings `--sasl-admin` turns on (a SASL_PLAINTEXT listener, the standard
 * authorizer, the admin as super user), taken from the CLI's own function so the
 * tests run the broker as it is deployed, plus the start-up users.
 */
export function saslAdminBroker(admin: User, others: readonly User[] = []): BrokerOptions {
  const c = applySaslAdmin(resolveConfig({ host: "127.0.0.1", port: 0 }), admin);
  return {
    listeners: c.listeners,
    "authorizer.class.name": c["authorizer.class.name"],
    "super.users": c["super.users"],
    saslUsers: [admin, ...others],
  };
}

/** A kafkajs client logged in as `u` with SCRAM-SHA-512. */
export function scramKafka(bootstrap: string, u: User, extra: Parameters<typeof kafkaClient>[1] = {}) {
  return saslKafka(bootstrap, "scram-sha-512", u.name, u.password, { clientId: `acl-test-${u.name}`, ...extra });
}

/**
 * SaslHandshake v1 + two SaslAuthenticate v1 round trips of SCRAM (RFC 5802);
 * checks the server signature too, so the broker proved it knows the credential.
 * Throws unless authenticated.
 */
export async function rawScramLogin(raw: RawClient, u: User, mech: ScramMechanism = SCRAM_SHA_512): Promise<void> {
  await raw.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "acl-test", clientSoftwareVersion: "1" });
  const hs = await raw.request(ApiKey.SaslHandshake, 1, { mechanism: mech.name });
  if (hs.body.errorCode !== ErrorCode.NONE) throw new Error(`SaslHandshake ${mech.name} failed: ${hs.body.errorCode}`);
  // User names here never contain ',' or '=', which SCRAM would escape.
  const clientFirstBare = `n=${u.name},r=${randomBytes(18).toString("base64")}`;
  const first = await raw.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(`n,,${clientFirstBare}`) });
  if (first.body.errorCode !== ErrorCode.NONE) throw new Error(`SCRAM client-first for ${u.name} refused: ${first.body.errorCode} ${first.body.errorMessage}`);
  const serverFirst = first.body.authBytes.toString();
  const clientFinal = scramClientFinal(mech, u.password, clientFirstBare, serverFirst);
  const final = await raw.request(ApiKey.SaslAuthenticate, 1, { authBytes: Buffer.from(clientFinal) });
  if (final.body.errorCode !== ErrorCode.NONE) throw new Error(`SCRAM client-final for ${u.name} refused: ${final.body.errorCode} ${final.body.errorMessage}`);
  // ServerSignature = HMAC(HMAC(SaltedPassword, "Server Key"), AuthMessage), computed here with node:crypto alone.
  const attrs = new Map(serverFirst.split(",").map((kv) => [kv.slice(0, 1), kv.slice(2)]));
  const salted = pbkdf2Sync(u.password, Buffer.from(attrs.get("s") ?? "", "base64"), Number(attrs.get("i")), mech.keyLength, mech.hash);
  const authMessage = `${clientFirstBare},${serverFirst},${clientFinal.slice(0, clientFinal.lastIndexOf(",p="))}`;
  const expected = createHmac(mech.hash, createHmac(mech.hash, salted).update("Server Key").digest()).update(authMessage).digest();
  const got = Buffer.from(final.body.authBytes.toString().replace(/^v=/, ""), "base64");
  if (got.length !== expected.length || !timingSafeEqual(got, expected)) throw new Error(`SCRAM server signature for ${u.name} does not verify`);
}

/** One raw connection authenticated (SCRAM-SHA-512) as one user. */
export class PrincipalClient {
  private constructor(
    private readonly raw: RawClient,
    readonly user: User,
  ) {}

  static async connect(port: number, u: User): Promise<PrincipalClient> {
    const raw = await RawClient.connect(port);
    try {
      await rawScramLogin(raw, u);
    } catch (err) {
      raw.close();
      throw err;
    }
    return new PrincipalClient(raw, u);
  }

  async call<K extends ApiKeyWithBody>(apiKey: K, apiVersion: number, body: RequestInput<K>): Promise<ResponseBodies[K]> {
    const correlationId = this.raw.send(apiKey, apiVersion, body);
    const frame = await this.raw.nextFrame(15000);
    if (!frame) throw new Error(`connection closed before the response to api ${apiKey} v${apiVersion}`);
    const decoded = decodeResponse(apiKey, apiVersion, frame);
    if (decoded.correlationId !== correlationId) throw new Error(`expected correlation id ${correlationId}, got ${decoded.correlationId}`);
    return decoded.body;
  }

  /** AlterUserScramCredentials: creates `u` with a SCRAM-SHA-512 credential (4096 iterations, Kafka's minimum). */
  async createUser(u: User): Promise<void> {
    const r = await this.call(ApiKey.AlterUserScramCredentials, 0, { deletions: [], upsertions: [upsertion(u.name, SCRAM_SHA_512, u.password, 4096)] });
    if (r.results[0]?.errorCode !== ErrorCode.NONE) throw new Error(`AlterUserScramCredentials for ${u.name}: ${r.results[0]?.errorCode} ${r.results[0]?.errorMessage}`);
    // Kafka's brokers learn the credential from the controller's metadata a moment after the answer, as clients see it.
    await waitFor(async () => (await this.call(ApiKey.DescribeUserScramCredentials, 0, { users: [{ name: u.name }] })).results[0]?.errorCode === ErrorCode.NONE, 10_000, `${u.name}'s credential`);
  }

  /** Waits until Metadata shows `topic` with a leader on every partition (Kafka hosts a created topic a moment after CreateTopics answers). */
  async awaitTopic(topic: string): Promise<void> {
    await waitFor(
      async () => {
        const t = (await this.call(ApiKey.Metadata, 8, { topics: [{ name: topic }], allowAutoTopicCreation: false })).topics[0];
        return !!t && t.errorCode === 0 && t.partitions.length > 0 && t.partitions.every((p) => p.errorCode === 0 && p.leaderId >= 0);
      },
      15_000,
      `topic ${topic} to have leaders`,
    );
  }

  /** Waits until the key's coordinator serves it, as helpers.ts awaitCoordinator does (the principal needs DESCRIBE on the key). */
  async awaitCoordinator(key: string, keyType = 0): Promise<void> {
    await awaitCoordinator(this.raw, key, keyType);
  }

  close(): void {
    this.raw.close();
  }
}

export function rand(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}
