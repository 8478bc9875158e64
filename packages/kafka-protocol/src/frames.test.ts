import { describe, expect, it } from "vitest";
import { UnsupportedVersionError, apiName, apiVersionRange, requestHeaderVersion, responseHeaderVersion } from "./codec.ts";
import { errorMessage, errorName } from "./error-names.ts";
import { ProtocolError } from "./errors.ts";
import { decodeRequest, decodeRequestHeader, decodeResponse, encodeRequest, encodeResponse, encodeResponseParts } from "./frames.ts";
import { ApiKey } from "./generated/api-keys.ts";
import { ErrorCode } from "./generated/error-codes.ts";
import { encodeRecordBatch } from "./record-batch.ts";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

describe("bytes captured from real clients", () => {
  // kcat 1.7.1 / librdkafka 2.0.2 (Debian bookworm), first frame on connect,
  // captured with a TCP listener: `kcat -b 127.0.0.1:39092 -L -X client.id=kcat-capture`.
  const LIBRDKAFKA_API_VERSIONS_V3 = hex(
    "00000029 0012 0003 00000001 000c 6b6361742d63617074757265 00" + "0b 6c696272646b61666b61 06 322e302e32 00",
  );
  // kafkajs 2.2.4's own request encoders (src/protocol/request.js + requests/*/v*/request.js).
  const KAFKAJS_API_VERSIONS_V2 = hex("00000019 0012 0002 00000005 000f 6b61666b616a732d63617074757265");
  const KAFKAJS_METADATA_V1 = hex(
    "0000002f 0003 0001 00000005 000f 6b61666b616a732d63617074757265" + "00000002 0006 6f7264657273 0008 7061796d656e7473",
  );
  const KAFKAJS_METADATA_V1_ALL_TOPICS = hex("0000001d 0003 0001 00000005 000f 6b61666b616a732d63617074757265 ffffffff");

  it("librdkafka ApiVersions v3: header v2 with a classic (non-compact) client id, compact body strings", () => {
    const req = decodeRequest(LIBRDKAFKA_API_VERSIONS_V3.subarray(4));
    expect(req.header).toEqual({
      apiKey: 18,
      apiVersion: 3,
      correlationId: 1,
      clientId: "kcat-capture",
      headerVersion: 2,
      headerLength: 23,
    });
    expect(req.body).toEqual({ clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.0.2" });
    const again = encodeRequest(
      { apiKey: ApiKey.ApiVersions, apiVersion: 3, correlationId: 1, clientId: "kcat-capture" },
      { clientSoftwareName: "librdkafka", clientSoftwareVersion: "2.0.2" },
    );
    expect(again.toString("hex")).toBe(LIBRDKAFKA_API_VERSIONS_V3.toString("hex"));
  });

  it("kafkajs ApiVersions v2 (empty body)", () => {
    const req = decodeRequest(KAFKAJS_API_VERSIONS_V2.subarray(4));
    expect(req.header).toMatchObject({ apiKey: 18, apiVersion: 2, correlationId: 5, clientId: "kafkajs-capture", headerVersion: 1 });
    const again = encodeRequest({ apiKey: ApiKey.ApiVersions, apiVersion: 2, correlationId: 5, clientId: "kafkajs-capture" }, {});
    expect(again.equals(KAFKAJS_API_VERSIONS_V2)).toBe(true);
  });

  it("kafkajs Metadata v1 with two topics and with null (all topics)", () => {
    const req = decodeRequest(KAFKAJS_METADATA_V1.subarray(4));
    expect(req.apiKey).toBe(ApiKey.Metadata);
    if (req.apiKey !== ApiKey.Metadata) return;
    expect(req.body.topics?.map((t) => t.name)).toEqual(["orders", "payments"]);
    // allowAutoTopicCreation is not on the wire before v4; its default (true) applies.
    expect(req.body.allowAutoTopicCreation).toBe(true);
    const all = decodeRequest(KAFKAJS_METADATA_V1_ALL_TOPICS.subarray(4));
    expect(all.body).toMatchObject({ topics: null });
    const again = encodeRequest(
      { apiKey: ApiKey.Metadata, apiVersion: 1, correlationId: 5, clientId: "kafkajs-capture" },
      { topics: [{ name: "orders" }, { name: "payments" }] },
    );
    expect(again.equals(KAFKAJS_METADATA_V1)).toBe(true);
  });

  it("Metadata v0 cannot encode null topics (nullable only from v1)", () => {
    expect(() => encodeRequest({ apiKey: ApiKey.Metadata, apiVersion: 0, correlationId: 1, clientId: null }, { topics: null })).toThrow(
      ProtocolError,
    );
  });
});

describe("response headers", () => {
  it("ApiVersions v3 response uses header v0 (no tagged fields) but a flexible body with tagged fields", () => {
    const frame = encodeResponse(ApiKey.ApiVersions, 3, 1, {
      errorCode: 0,
      apiKeys: [{ apiKey: 0, minVersion: 0, maxVersion: 8 }],
      throttleTimeMs: 0,
      finalizedFeaturesEpoch: 5n,
    });
    expect(frame.toString("hex")).toBe(
      [
        "0000001d", // size
        "00000001", // correlation id, then no header tagged fields
        "0000", // error code
        "02", // compact array of 1
        "0000 0000 0008 00".replace(/ /g, ""), // api key 0, 0..8, no tags
        "00000000", // throttle
        "01 01 08 0000000000000005".replace(/ /g, ""), // 1 tagged field: tag 1 (FinalizedFeaturesEpoch), 8 bytes
      ].join(""),
    );
    expect(decodeResponse(ApiKey.ApiVersions, 3, frame.subarray(4)).body.finalizedFeaturesEpoch).toBe(5n);
  });

  it("tagged fields are read in any order and unknown tags are skipped", () => {
    const frame = hex("00000001 0000 01 00000000 03 09 02 aabb 03 01 01 01 08 0000000000000007");
    expect(decodeResponse(ApiKey.ApiVersions, 3, frame).body).toMatchObject({
      apiKeys: [],
      zkMigrationReady: true,
      finalizedFeaturesEpoch: 7n,
      supportedFeatures: [],
    });
  });

  it("v0 unsupported-version ApiVersions answer has the layout librdkafka and kafkajs expect", () => {
    const frame = encodeResponse(ApiKey.ApiVersions, 0, 9, {
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
    });
    expect(frame.toString("hex")).toBe("00000010" + "00000009" + "0023" + "00000001" + "0012" + "0000" + "0003");
  });

  it("other flexible responses get header v1 (an empty tagged-field section after the correlation id)", () => {
    expect(responseHeaderVersion(ApiKey.Metadata, 9)).toBe(1);
    expect(responseHeaderVersion(ApiKey.Metadata, 8)).toBe(0);
    expect(responseHeaderVersion(ApiKey.ApiVersions, 4)).toBe(0);
    const frame = encodeResponse(ApiKey.Heartbeat, 4, 3, { errorCode: 0 });
    expect(frame.toString("hex")).toBe("0000000c" + "00000003" + "00" + "00000000" + "0000" + "00");
  });

  it("request header versions follow each API's first flexible version", () => {
    expect(requestHeaderVersion(ApiKey.Produce, 8)).toBe(1);
    expect(requestHeaderVersion(ApiKey.Produce, 9)).toBe(2);
    expect(requestHeaderVersion(ApiKey.DescribeUserScramCredentials, 0)).toBe(2);
    expect(requestHeaderVersion(ApiKey.SaslHandshake, 1)).toBe(1);
  });
});

describe("decodeRequestHeader for requests the codec cannot decode", () => {
  it("reads an ApiVersions v9 header (flexible, beyond the definitions) and decodeRequest refuses the body", () => {
    const frame = hex("0012 0009 0000002a 0003 616263 00 ffff");
    expect(decodeRequestHeader(frame)).toEqual({
      apiKey: 18,
      apiVersion: 9,
      correlationId: 42,
      clientId: "abc",
      headerVersion: 2,
      headerLength: 14,
    });
    expect(() => decodeRequest(frame)).toThrow(UnsupportedVersionError);
  });

  it("reads the header of an unknown API key", () => {
    const frame = hex("03e7 0000 00000007 ffff 0102");
    expect(decodeRequestHeader(frame)).toMatchObject({ apiKey: 999, apiVersion: 0, correlationId: 7, clientId: null, headerLength: 10 });
    expect(apiName(999)).toBe("Unknown(999)");
    expect(() => decodeRequest(frame)).toThrow(UnsupportedVersionError);
  });

  it("truncated headers throw ProtocolError", () => {
    expect(() => decodeRequestHeader(hex("0012 0003 0000"))).toThrow(ProtocolError);
    expect(() => decodeRequestHeader(hex("0012 0003 00000001 0005 6162"))).toThrow(ProtocolError);
  });
});

describe("Produce with large records", () => {
  const batch = encodeRecordBatch({ baseTimestamp: 1n, records: [{ value: Buffer.alloc(1024 * 1024, 7) }] });

  for (const version of [3, 7, 9, 11]) {
    it(`v${version}: the records field is a view into the frame, not a copy`, () => {
      const frame = encodeRequest(
        { apiKey: ApiKey.Produce, apiVersion: version, correlationId: 1, clientId: "p" },
        { acks: -1, timeoutMs: 30000, topicData: [{ name: "t", partitionData: [{ index: 0, records: batch }] }] },
      ).subarray(4);
      const req = decodeRequest(frame);
      if (req.apiKey !== ApiKey.Produce) throw new Error("wrong api");
      const records = req.body.topicData[0]!.partitionData[0]!.records!;
      expect(records.equals(batch)).toBe(true);
      expect(records.buffer).toBe(frame.buffer);
      const t = performance.now();
      for (let i = 0; i < 100; i++) decodeRequest(frame);
      // Decoding cost must not scale with the records size (no copy): far below a 1 MB memcpy each.
      expect((performance.now() - t) / 100).toBeLessThan(1);
    });
  }
});

describe("absurd lengths inside requests", () => {
  it("a Metadata v1 topic count of 2^31-1 is a ProtocolError, nothing allocated", () => {
    const before = process.memoryUsage().arrayBuffers;
    expect(() => decodeRequest(hex("0003 0001 00000001 ffff 7fffffff 0001 61"))).toThrow(ProtocolError);
    // ApiVersions v3 with a clientSoftwareName length of 2^31-1
    expect(() => decodeRequest(hex("0012 0003 00000001 ffff 00 8080808008 61"))).toThrow(ProtocolError);
    // Metadata v9 (flexible): compact array count 2^32-2
    expect(() => decodeRequest(hex("0003 0009 00000001 ffff 00 ffffffff0f 00"))).toThrow(ProtocolError);
    // Produce v3 records length 2^31-1
    expect(() =>
      decodeRequest(hex("0000 0003 00000001 ffff ffff ffff 00007530 00000001 0001 74 00000001 00000000 7fffffff 00")),
    ).toThrow(ProtocolError);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });
});

describe("ApiKey, ErrorCode and names", () => {
  it("maps names and codes from the definitions and errors.tsv", () => {
    expect(ApiKey.Produce).toBe(0);
    expect(ApiKey.Fetch).toBe(1);
    expect(ApiKey.ApiVersions).toBe(18);
    expect(ApiKey.DescribeCluster).toBe(60);
    expect(ErrorCode.NONE).toBe(0);
    expect(ErrorCode.UNKNOWN_SERVER_ERROR).toBe(-1);
    expect(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION).toBe(3);
    expect(ErrorCode.UNSUPPORTED_VERSION).toBe(35);
    expect(errorName(35)).toBe("UNSUPPORTED_VERSION");
    expect(errorName(-1)).toBe("UNKNOWN_SERVER_ERROR");
    expect(errorName(12345)).toBe("UNKNOWN(12345)");
    expect(errorMessage(3)).toMatch(/topic-partition/);
    expect(apiName(0)).toBe("Produce");
    expect(apiVersionRange(ApiKey.Produce)).toEqual({ min: 0, max: 11 });
  });
});

describe("a response encoded as parts", () => {
  it("is the same bytes as the copied encoding, and refers to record runs of the threshold's size instead of copying them", () => {
    const big = Buffer.alloc(70_000, 7);
    const small = Buffer.alloc(100, 9);
    for (const version of [4, 11, 12]) {
      const body = {
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: [
          {
            topic: "t",
            topicId: "AAAAAAAAAAAAAAAAAAAAAA",
            partitions: [
              { partitionIndex: 0, errorCode: 0, highWatermark: 10n, lastStableOffset: 10n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: big },
              { partitionIndex: 1, errorCode: 0, highWatermark: 1n, lastStableOffset: 1n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: small },
              { partitionIndex: 2, errorCode: 0, highWatermark: 10n, lastStableOffset: 10n, logStartOffset: 0n, abortedTransactions: [], preferredReadReplica: -1, records: big },
            ],
          },
        ],
      };
      const whole = encodeResponse(ApiKey.Fetch, version, 42, body);
      const parts = encodeResponseParts(ApiKey.Fetch, version, 42, body, 64 * 1024);
      expect(Buffer.concat(parts).equals(whole), `v${version}`).toBe(true);
      // The two large runs are the caller's own buffer, not copies; the small one was copied in.
      expect(parts.filter((p) => p === big)).toHaveLength(2);
      expect(parts.some((p) => p === small)).toBe(false);
      expect(whole.readInt32BE(0)).toBe(whole.length - 4);
    }
  });
});
