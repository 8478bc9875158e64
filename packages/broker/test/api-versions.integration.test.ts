// ApiVersions is derived from the handler registry; every advertised version is
// served (a request of each api key × version gets its answer, not a closed
// connection), and the ranges keep kafkajs 2.2.4 and librdkafka 2.0.2 working.
import { afterAll, beforeAll, describe, expect } from "vitest";
import { ApiKey, ErrorCode, apiVersionRange, decodeResponse } from "@kappa/kafka-protocol";
import { CORE_APIS } from "../src/index.ts";
import { embeddedOnly, RawClient, startTestBroker, type TestBroker } from "./helpers.ts";

/** BROKER-SPEC §1 "Advertise" column (copied as test data). */
const SPEC_ADVERTISE: Record<string, [number, number]> = {
  SaslHandshake: [0, 1],
  DescribeAcls: [0, 1],
  CreateAcls: [0, 1],
  DeleteAcls: [0, 1],
  DescribeLogDirs: [0, 4],
  SaslAuthenticate: [0, 1],
  DescribeUserScramCredentials: [0, 0],
  AlterUserScramCredentials: [0, 0],
  // Issue 15: only what is served is advertised. Produce < 3 and Fetch < 4 carry message
  // format v0/v1, which this broker does not store; Apache Kafka 4.0 (KIP-896) dropped them too.
  Produce: [3, 8],
  Fetch: [4, 11],
  ListOffsets: [0, 9],
  // v10+ carries topic ids, which KIP-848 consumers resolve their assignment with (Kafka 4.1 serves 0-13).
  Metadata: [0, 12],
  // v7's require_stable (KIP-447) keeps exactly-once consumers off offsets a transaction is still committing;
  // v8 batches groups, v9 carries a KIP-848 member's id and epoch.
  OffsetFetch: [0, 9],
  FindCoordinator: [0, 2],
  // Issue 15, static membership: the group APIs up to Kafka 4.0's versions, which carry
  // group_instance_id (and, from JoinGroup v9, KIP-814's skip_assignment).
  OffsetCommit: [0, 9],
  JoinGroup: [0, 9],
  Heartbeat: [0, 4],
  LeaveGroup: [0, 5],
  SyncGroup: [0, 5],
  DescribeGroups: [0, 5],
  ListGroups: [0, 5],
  // Issue 15: modern-client APIs.
  DescribeCluster: [0, 1],
  OffsetForLeaderEpoch: [0, 4],
  // v4 (KIP-1022, Kafka 3.9+): v3's fields; SupportedFeatures may then list features whose minimum is 0.
  ApiVersions: [0, 4],
  CreateTopics: [0, 4],
  DeleteTopics: [0, 3],
  // Beyond the spec table (transactions, issue 15): InitProducerId up to KIP-588's v4 and v5, whose only
  // addition is an error this broker never returns; the client versions of the transactional APIs.
  InitProducerId: [0, 5],
  AddPartitionsToTxn: [0, 3],
  AddOffsetsToTxn: [0, 4],
  EndTxn: [0, 4],
  TxnOffsetCommit: [0, 4],
  DescribeProducers: [0, 0],
  DescribeTransactions: [0, 0],
  ListTransactions: [0, 1],
  DescribeConfigs: [0, 3],
  AlterConfigs: [0, 1],
  CreatePartitions: [0, 1],
  DeleteGroups: [0, 1],
  IncrementalAlterConfigs: [0, 1],
  // Not in the spec table; librdkafka 2.0.2 and kafkajs both use v0-1.
  DeleteRecords: [0, 1],
  // KIP-966's paginated topic description (Kafka 3.8+; the Java admin's describeTopics uses it).
  DescribeTopicPartitions: [0, 0],
  // KIP-848's consumer group protocol (Kafka 4.0 GA): the versions of the copied definitions (apache/kafka 1eb7644).
  ConsumerGroupHeartbeat: [0, 1],
  ConsumerGroupDescribe: [0, 0],
  // Client quotas (KIP-546, issue 33): every version Kafka has.
  DescribeClientQuotas: [0, 1],
  AlterClientQuotas: [0, 1],
};

/** librdkafka 2.0.2 feature windows (BROKER-SPEC §1): a feature is on only if the range overlaps. */
const LIBRDKAFKA_FEATURES: Array<[string, Array<[string, number, number]>]> = [
  ["MsgVer2", [["Produce", 3, 3], ["Fetch", 4, 4]]],
  ["BrokerBalancedConsumer", [["FindCoordinator", 0, 0], ["JoinGroup", 0, 0], ["SyncGroup", 0, 0], ["Heartbeat", 0, 0], ["LeaveGroup", 0, 0], ["OffsetCommit", 1, 2], ["OffsetFetch", 1, 1]]],
  ["IdempotentProducer", [["InitProducerId", 0, 0]]],
  ["OffsetTime", [["ListOffsets", 1, 1]]],
  ["ZSTD", [["Produce", 7, 7], ["Fetch", 10, 10]]],
];

let broker: TestBroker;
beforeAll(async () => {
  broker = await startTestBroker();
});
afterAll(async () => {
  await broker.cleanup();
});

describe("ApiVersions", () => {
  embeddedOnly("its own registry").it("answers with exactly the registry's advertised ranges", async () => {
    const c = await RawClient.connect(broker.port);
    const r = await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "test", clientSoftwareVersion: "1" });
    c.close();
    expect(r.body.errorCode).toBe(ErrorCode.NONE);
    expect(r.body.apiKeys.map((k) => ({ apiKey: k.apiKey, minVersion: k.minVersion, maxVersion: k.maxVersion }))).toEqual(broker.registry.advertisedVersions());
    expect(broker.registry.advertisedVersions()).toEqual(
      [...CORE_APIS].sort((a, b) => a.apiKey - b.apiKey).map((a) => ({ apiKey: a.apiKey, minVersion: a.advertised.min, maxVersion: a.advertised.max })),
    );
  });

  embeddedOnly("the features it implements").it("reports Kafka 4.1's supported and finalized features for what it implements (kafka-features describe)", async () => {
    const c = await RawClient.connect(broker.port);
    try {
      const v4 = (await c.request(ApiKey.ApiVersions, 4, { clientSoftwareName: "test", clientSoftwareVersion: "1" })).body;
      expect(v4.supportedFeatures).toEqual([
        { name: "group.version", minVersion: 0, maxVersion: 1 },
        { name: "kraft.version", minVersion: 0, maxVersion: 0 },
        { name: "metadata.version", minVersion: 7, maxVersion: 27 },
        { name: "transaction.version", minVersion: 0, maxVersion: 0 },
      ]);
      expect(v4.finalizedFeaturesEpoch).toBe(0n);
      expect(v4.finalizedFeatures).toEqual([
        { name: "group.version", minVersionLevel: 1, maxVersionLevel: 1 },
        { name: "metadata.version", minVersionLevel: 27, maxVersionLevel: 27 },
      ]);
      // Before v4, features whose minimum is 0 are left out, as Kafka does for older clients.
      const v3 = (await c.request(ApiKey.ApiVersions, 3, { clientSoftwareName: "test", clientSoftwareVersion: "1" })).body;
      expect(v3.supportedFeatures).toEqual([{ name: "metadata.version", minVersion: 7, maxVersion: 27 }]);
      expect(v3.finalizedFeatures).toEqual(v4.finalizedFeatures);
    } finally {
      c.close();
    }
    // librdkafka 2.0.2 sends ApiVersions v3 and must still read the answer with its tagged fields.
    const { runKcat } = await import("./sasl-helpers.ts");
    const r = await runKcat(broker.bootstrap, ["-L", "-d", "broker", "-m", "5"]);
    expect(r.code, r.stderr).toBe(0);
    // One ApiVersions round (no fallback to v0 after a parse failure), then librdkafka's features turn on.
    expect(r.stderr.match(/APIVERSION_QUERY -> UP/g)?.length ?? 0).toBeGreaterThan(0);
    expect(r.stderr).toMatch(/Updated enabled protocol features to ApiVersion,.*MsgVer2/);
    expect(r.stderr).not.toMatch(/ApiVersionRequest failed|ApiVersion.*Retrying with/i);
  });

  embeddedOnly("its own registry").it("advertises the ranges BROKER-SPEC requires, and the codec supports every served version", () => {
    const advertised = new Map(broker.registry.all().map((a) => [a.name, a]));
    // Every core API is registered; nothing is registered that the spec does not list.
    for (const api of CORE_APIS) expect(advertised.has(api.name), api.name).toBe(true);
    for (const name of advertised.keys()) expect(Object.keys(SPEC_ADVERTISE), name).toContain(name);
    for (const [name, [min, max]] of Object.entries(SPEC_ADVERTISE)) {
      const api = advertised.get(name);
      if (!api) continue; // registered by part 2 (SASL, ACLs, tiered storage) only when enabled

      expect([api.advertised.min, api.advertised.max], name).toEqual([min, max]);
      expect(api.implemented, `${name} serves everything it advertises`).toEqual(api.advertised);
      const codec = apiVersionRange(api.apiKey);
      if (!codec) throw new Error(`${name}: no codec definition`);
      expect(codec.min <= api.implemented.min && codec.max >= api.implemented.max, `${name} codec ${codec.min}-${codec.max}`).toBe(true);
    }
  });

  embeddedOnly("its own registry").it("enables every librdkafka 2.0.2 feature window", () => {
    const byName = new Map(broker.registry.all().map((a) => [a.name, a.advertised]));
    for (const [feature, needs] of LIBRDKAFKA_FEATURES) {
      for (const [api, lo, hi] of needs) {
        const r = byName.get(api)!;
        expect(r.min <= hi && r.max >= lo, `${feature} needs ${api} ${lo}-${hi}`).toBe(true);
      }
    }
  });

  embeddedOnly("its own registry").it("serves every advertised version of every api key (an answer with the request's correlation id, never a close)", async () => {
    // Minimal bodies; everything else takes the definition's defaults. Produce must ask for an answer (acks=-1),
    // Fetch must not park, SaslHandshake is answered ILLEGAL_SASL_STATE on this PLAINTEXT listener, DescribeAcls'
    // filter holds no UNKNOWN (0) element (that closes the connection, as on Kafka).
    const bodies: Partial<Record<number, Record<string, unknown>>> = {
      [ApiKey.DescribeAcls]: { resourceTypeFilter: 1, patternTypeFilter: 1, operation: 1, permissionType: 1 },
      [ApiKey.Produce]: { acks: -1, timeoutMs: 1000, topicData: [] },
      [ApiKey.Fetch]: { maxWaitMs: 0, minBytes: 0, maxBytes: 1024, topics: [] },
      [ApiKey.Metadata]: { topics: [] },
      [ApiKey.JoinGroup]: { groupId: "g", sessionTimeoutMs: 10, memberId: "", protocolType: "consumer", protocols: [] },
      [ApiKey.SaslHandshake]: { mechanism: "PLAIN" },
    };
    let checked = 0;
    for (const api of broker.registry.all()) {
      const c = await RawClient.connect(broker.port);
      try {
        for (let v = api.advertised.min; v <= api.advertised.max; v++) {
          const id = c.send(api.apiKey as never, v, (bodies[api.apiKey] ?? {}) as never);
          const frame = await c.nextFrame(10_000);
          expect(frame, `${api.name} v${v} closed the connection`).not.toBeNull();
          const decoded = decodeResponse(api.apiKey as never, v, frame!);
          expect(decoded.correlationId, `${api.name} v${v}`).toBe(id);
          checked++;
        }
      } finally {
        c.close();
      }
    }
    expect(checked).toBeGreaterThanOrEqual(140);
  });
});
