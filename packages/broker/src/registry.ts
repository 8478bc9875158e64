// The handler registry. Every API lives in one file under src/apis/ and registers
// itself here with its version range:
//  - `implemented`: the versions the handler really serves;
//  - `advertised`: what ApiVersions tells clients, which must equal `implemented`
//    (issue 15: every advertised version is served; checked here and by a test
//    that sends every api key × version). librdkafka 2.0.2 only enables features
//    whose window the range overlaps (BROKER-SPEC §1: JoinGroup, FindCoordinator,
//    SaslHandshake … must include 0), so those old versions are served; Produce < 3
//    and Fetch < 4 (message format v0/v1) are neither served nor advertised, as in
//    Apache Kafka 4.0 (KIP-896).
// A version outside the range closes the connection. ApiVersions is computed from
// this registry, never from a hand-kept list.
import type { DeepPartial } from "@kappa/kafka-protocol";
import type { BrokerCore } from "./broker.ts";
import type { Session } from "./session.ts";

export interface VersionRange {
  min: number;
  max: number;
}

export interface RequestContext {
  readonly broker: BrokerCore;
  readonly session: Session;
  readonly apiKey: number;
  readonly apiVersion: number;
  readonly correlationId: number;
  /** Aborted when the connection closes, so parked requests (long-poll fetches) can be released. */
  readonly signal: AbortSignal;
  /** Size of the request frame in bytes (what Kafka's produce quota counts). */
  readonly requestBytes: number;
  /**
   * Set by a handler whose client exceeded a quota: the throttle time it put in
   * its response. The connection reads no further request from this client for
   * that long after the response is sent (KIP-219 channel muting).
   */
  throttleMs: number;
}

/**
 * A handler's answer: a response body, or null for "send nothing" (Produce with acks=0).
 * Fields left out take the definition's default when encoded.
 */
export type HandlerResult<Res> = DeepPartial<Res> | null;

export interface ApiDefinition<Req, Res> {
  apiKey: number;
  name: string;
  advertised: VersionRange;
  implemented: VersionRange;
  /**
   * What Kafka's request class refuses when it parses the request (it then
   * closes the connection without an answer, as for a malformed request);
   * null when the request is acceptable.
   */
  unparsable?(request: Req): string | null;
  handle(ctx: RequestContext, request: Req): Promise<HandlerResult<Res>> | HandlerResult<Res>;
}

export interface RegisteredApi {
  readonly apiKey: number;
  readonly name: string;
  readonly advertised: VersionRange;
  readonly implemented: VersionRange;
  /** ApiDefinition.unparsable: why the connection closes instead of an answer, or null. */
  unparsable(request: unknown): string | null;
  /** `request` is the body decoded by @kappa/kafka-protocol for this api key and version. */
  handle(ctx: RequestContext, request: unknown): Promise<unknown>;
}

/**
 * Wraps a typed handler for the registry. The cast is sound because the registry
 * only passes bodies that the protocol codec decoded for this handler's api key.
 */
export function defineApi<Req, Res>(def: ApiDefinition<Req, Res>): RegisteredApi {
  if (def.implemented.min !== def.advertised.min || def.implemented.max !== def.advertised.max) {
    throw new Error(`${def.name}: advertises ${def.advertised.min}-${def.advertised.max} but serves ${def.implemented.min}-${def.implemented.max}`);
  }
  return {
    apiKey: def.apiKey,
    name: def.name,
    advertised: def.advertised,
    implemented: def.implemented,
    unparsable: (request) => def.unparsable?.(request as Req) ?? null,
    handle: async (ctx, request) => def.handle(ctx, request as Req),
  };
}

export class ApiRegistry {
  private readonly byKey = new Map<number, RegisteredApi>();

  register(api: RegisteredApi): void {
    if (this.byKey.has(api.apiKey)) throw new Error(`api key ${api.apiKey} (${api.name}) registered twice`);
    this.byKey.set(api.apiKey, api);
  }

  /** Replace or add a handler (part 2 slots SaslHandshake/SaslAuthenticate in this way). */
  replace(api: RegisteredApi): void {
    this.byKey.set(api.apiKey, api);
  }

  get(apiKey: number): RegisteredApi | undefined {
    return this.byKey.get(apiKey);
  }

  all(): RegisteredApi[] {
    return [...this.byKey.values()].sort((a, b) => a.apiKey - b.apiKey);
  }

  /** The ApiVersions `api_keys` array. */
  advertisedVersions(): Array<{ apiKey: number; minVersion: number; maxVersion: number }> {
    return this.all().map((a) => ({ apiKey: a.apiKey, minVersion: a.advertised.min, maxVersion: a.advertised.max }));
  }
}
