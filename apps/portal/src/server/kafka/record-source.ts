/*
 * The catalog's RecordSource over the message browser's principal: Metadata
 * for partitions and leaders, ListOffsets for bounds and timestamps, Fetch by
 * partition (READ_COMMITTED: aborted transactional records are not shown).
 * Connections are kept per broker and reopened when they break.
 */
import type { ConnectionOptions } from "node:tls";
import { NotConfiguredError, type PartitionBounds, type ReadResult, type RecordSource } from "@kappa/catalog";
import { ApiKey, decodeFetchedRecords, ErrorCode, type ScramMechanism } from "@kappa/kafka-protocol";
import { KafkaConnection, KafkaProtocolError } from "@kappa/kafka-protocol/client";

export interface KafkaReaderSettings {
  brokers: string[];
  sasl: { mechanism: ScramMechanism; username: string; password: string } | null;
  tls: ConnectionOptions | null;
  connectTimeoutMs?: number;
  requestTimeoutMs?: number;
}

/**
 * A Kafka error of a read. TOPIC_AUTHORIZATION_FAILED is expected for a few
 * seconds after a product goes live: the worker grants the browser's
 * principal READ on live topics in its own loop (WORKER_MESSAGE_BROWSER_RECONCILE_MS),
 * so it is a 503 to try again, not an unexpected failure.
 */
function readFailure(code: number, topic: string, what: string): Error {
  if (code === ErrorCode.TOPIC_AUTHORIZATION_FAILED) {
    return new NotConfiguredError(`The message browser has not been granted read access to ${topic} yet (the worker grants it shortly after a product goes live); try again in a few seconds.`);
  }
  return new KafkaProtocolError(code, what);
}

function split(address: string): [string, number] {
  const i = address.lastIndexOf(":");
  return [address.slice(0, i).replace(/^\[|\]$/g, ""), Number(address.slice(i + 1))];
}

export class KafkaRecordSource implements RecordSource {
  private readonly pool = new Map<string, Promise<KafkaConnection>>();

  constructor(private readonly settings: KafkaReaderSettings) {}

  private conn(address: string): Promise<KafkaConnection> {
    const existing = this.pool.get(address);
    if (existing) {
      return existing.then((c) => {
        if (c.isOpen) return c;
        this.pool.delete(address);
        return this.conn(address);
      });
    }
    const [host, port] = split(address);
    const opening = KafkaConnection.open({ host, port, clientId: "kappa-portal-browser", clientSoftwareName: "kappa-portal", sasl: this.settings.sasl, tls: this.settings.tls, connectTimeoutMs: this.settings.connectTimeoutMs ?? 3_000, requestTimeoutMs: this.settings.requestTimeoutMs ?? 15_000 });
    this.pool.set(address, opening);
    opening.catch(() => this.pool.delete(address));
    return opening;
  }

  private async any(): Promise<KafkaConnection> {
    let last: unknown;
    for (const b of this.settings.brokers) {
      try {
        return await this.conn(b);
      } catch (error) {
        last = error;
      }
    }
    throw last instanceof Error ? last : new Error(String(last));
  }

  /** Partition → leader address. */
  private async leaders(topic: string): Promise<Map<number, string>> {
    const c = await this.any();
    const res = await c.request(ApiKey.Metadata, { topics: [{ name: topic }], allowAutoTopicCreation: false }, c.pickVersion(ApiKey.Metadata, 1, 12));
    const brokers = new Map(res.brokers.map((b) => [b.nodeId, `${b.host.includes(":") ? `[${b.host}]` : b.host}:${b.port}`]));
    const t = res.topics.find((x) => x.name === topic);
    if (!t) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `metadata of ${topic}`);
    if (t.errorCode !== 0) throw readFailure(t.errorCode, topic, `metadata of ${topic}`);
    return new Map(t.partitions.map((p) => [p.partitionIndex, brokers.get(p.leaderId) ?? ""]));
  }

  private async listOffsets(topic: string, leaders: Map<number, string>, partitions: readonly number[], timestamp: bigint): Promise<Map<number, { offset: bigint }>> {
    const out = new Map<number, { offset: bigint }>();
    const byLeader = new Map<string, number[]>();
    for (const p of partitions) byLeader.set(leaders.get(p) ?? "", [...(byLeader.get(leaders.get(p) ?? "") ?? []), p]);
    await Promise.all(
      [...byLeader].map(async ([address, ps]) => {
        if (!address) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `leader of ${topic}`);
        const c = await this.conn(address);
        const res = await c.request(ApiKey.ListOffsets, { replicaId: -1, isolationLevel: 1, topics: [{ name: topic, partitions: ps.map((partitionIndex) => ({ partitionIndex, timestamp, currentLeaderEpoch: -1 })) }] }, c.pickVersion(ApiKey.ListOffsets, 1, 7));
        for (const t of res.topics) for (const p of t.partitions) {
          if (p.errorCode !== 0) throw readFailure(p.errorCode, topic, `ListOffsets ${topic}-${p.partitionIndex}`);
          out.set(p.partitionIndex, { offset: p.offset });
        }
      }),
    );
    return out;
  }

  async bounds(topic: string, partitions?: readonly number[]): Promise<PartitionBounds[]> {
    const leaders = await this.leaders(topic);
    const ps = (partitions ?? [...leaders.keys()]).filter((p) => leaders.has(p)).sort((a, b) => a - b);
    const [earliest, latest] = await Promise.all([this.listOffsets(topic, leaders, ps, -2n), this.listOffsets(topic, leaders, ps, -1n)]);
    return ps.map((partition) => ({ partition, earliest: earliest.get(partition)?.offset ?? 0n, end: latest.get(partition)?.offset ?? 0n }));
  }

  async offsetsForTimestamp(topic: string, partitions: readonly number[], timestampMs: bigint): Promise<Map<number, bigint | null>> {
    const leaders = await this.leaders(topic);
    const found = await this.listOffsets(topic, leaders, partitions, timestampMs);
    return new Map(partitions.map((p) => {
      const o = found.get(p)?.offset ?? -1n;
      return [p, o < 0n ? null : o];
    }));
  }

  async read(topic: string, partition: number, from: bigint, maxBytes: number): Promise<ReadResult> {
    const address = (await this.leaders(topic)).get(partition);
    if (!address) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `leader of ${topic}-${partition}`);
    const c = await this.conn(address);
    const res = await c.request(
      ApiKey.Fetch,
      {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes,
        isolationLevel: 1,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: from, lastFetchedEpoch: -1, logStartOffset: -1n, partitionMaxBytes: maxBytes }] }],
        forgottenTopicsData: [],
        rackId: "",
      },
      c.pickVersion(ApiKey.Fetch, 4, 12),
    );
    if (res.errorCode !== 0) throw new KafkaProtocolError(res.errorCode, "Fetch");
    const p = res.responses[0]?.partitions[0];
    if (!p) throw new Error(`Fetch ${topic}-${partition}: no answer for the partition`);
    if (p.errorCode !== 0) throw readFailure(p.errorCode, topic, `Fetch ${topic}-${partition} at ${from}`);
    const decoded = decodeFetchedRecords(p.records ?? null, from, (p.abortedTransactions ?? []).map((a) => ({ producerId: a.producerId, firstOffset: a.firstOffset })));
    return {
      records: decoded.records.map((r) => ({ partition, offset: r.offset, timestamp: r.timestamp, timestampType: r.timestampType, key: r.key, value: r.value, headers: r.headers })),
      next: decoded.nextOffset,
      end: p.highWatermark,
      undecodable: decoded.undecodable,
    };
  }

  close(): void {
    for (const c of this.pool.values()) void c.then((x) => x.close()).catch(() => undefined);
    this.pool.clear();
  }
}
