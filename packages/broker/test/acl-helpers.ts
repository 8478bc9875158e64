// Helpers for the authorization tests.
//
// TEST ONLY — principals without SASL: `mapPrincipalsFromClientId` wraps the
// broker's connection gate so that a request whose client_id is `as:<name>`
// runs as `User:<name>`. The authorization tests are about what a principal may
// do, not how it authenticates (SASL has its own tests); this lets them drive
// many principals over plain connections, with kafkajs and raw requests alike.
// Nothing in src/ offers this: it exists only in this file.
import { randomBytes } from "node:crypto";
import { decodeResponse, encodeRequest, type ApiKeyWithBody, type RequestInput, type ResponseBodies } from "@kappa/kafka-protocol";
import type { RunningBroker } from "../src/index.ts";
import { RawClient } from "./helpers.ts";

const PREFIX = "as:";

export function mapPrincipalsFromClientId(broker: RunningBroker): void {
  const inner = broker.core.gate;
  broker.core.gate = (session, apiKey) => {
    if (session.clientId.startsWith(PREFIX)) session.principal = `User:${session.clientId.slice(PREFIX.length)}`;
    return inner(session, apiKey);
  };
}

export function clientIdFor(user: string): string {
  return `${PREFIX}${user}`;
}

/** One raw connection acting as one principal. */
export class PrincipalClient {
  private correlation = 1;
  private constructor(
    private readonly raw: RawClient,
    readonly user: string,
  ) {}

  static async connect(port: number, user: string): Promise<PrincipalClient> {
    return new PrincipalClient(await RawClient.connect(port), user);
  }

  async call<K extends ApiKeyWithBody>(apiKey: K, apiVersion: number, body: RequestInput<K>): Promise<ResponseBodies[K]> {
    const correlationId = this.correlation++;
    this.raw.write(encodeRequest({ apiKey, apiVersion, correlationId, clientId: clientIdFor(this.user) }, body));
    const frame = await this.raw.nextFrame(15000);
    if (!frame) throw new Error(`connection closed before the response to api ${apiKey} v${apiVersion}`);
    const decoded = decodeResponse(apiKey, apiVersion, frame);
    if (decoded.correlationId !== correlationId) throw new Error(`expected correlation id ${correlationId}, got ${decoded.correlationId}`);
    return decoded.body;
  }

  close(): void {
    this.raw.close();
  }
}

export function rand(prefix: string): string {
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}
