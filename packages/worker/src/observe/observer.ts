/*
 * One observation cycle: what the cluster says about every product topic and
 * every subscriber's consumer groups, written to the catalog as the latest
 * values plus a one-minute-bucket history. A figure the cluster cannot give is
 * stored as NULL ("unknown"), never as 0.
 *
 * The cycle stays bounded at 100,000 products (60,000 partitions, thousands of
 * groups) because it works incrementally:
 *  - the catalog is read incrementally (CatalogView: rows whose updatedAt moved);
 *  - metadata is fetched for new topics, and for all of them once per
 *    metadata interval (partition counts change rarely);
 *  - end offsets of every partition are read every cycle (one ListOffsets per
 *    leader) — that is how a cycle learns which partitions moved;
 *  - the other figures (log start, local start, tiered offset, local and
 *    remote bytes) are read, and rows written, only for topics that moved,
 *    topics never seen, and the topics whose last refresh is older than the
 *    refresh round — at most `maxTopicsPerCycle`; the rest wait a cycle;
 *  - group rows are written when their figures changed, while they lag, and
 *    once per refresh round.
 *
 * Per-cycle work of other features hooks in with `observer.use(step)`: a step
 * runs after the cycle's writes, sees what the cycle observed, and its errors
 * are logged and reported without stopping the cycle or the other steps.
 */
import type { Db } from "@kappa/catalog";
import type { KafkaCluster } from "../kafka/cluster.ts";
import type { Logger } from "../log.ts";
import { errorMessage } from "../log.ts";
import { CatalogView } from "./catalog-view.ts";
import { GroupStates, type GroupRow } from "./groups.ts";
import { TopicStates, type TopicState } from "./topic-state.ts";
import { sweep, writeCycle, type TopicRow } from "./write.ts";

export interface ObserverOptions {
  historyHours: number;
  /** Every topic and group row is refreshed at least this often (default 60 s: a sample per minute bucket), as far as the per-cycle caps allow. */
  refreshRoundMs?: number;
  /** Cap on topics fully refreshed and written per cycle (default 1,000). */
  maxTopicsPerCycle?: number;
  /** Cap on group rows written per cycle (default 2,500). */
  maxGroupsPerCycle?: number;
  /** Partition counts of all topics are re-read this often (default 60 s); new topics at once. */
  metadataRefreshMs?: number;
  /** The catalog is re-read in full this often (default 5 min); incrementally in between. */
  catalogReloadMs?: number;
}

export interface ObservationSummary {
  /** Live product topics that exist on the cluster. */
  topics: number;
  /** Partitions whose end offsets were read. */
  partitions: number;
  /** Subscriber groups found on the cluster. */
  groups: number;
  /** Rows written this cycle. */
  written: { topics: number; groups: number };
  /** Rows due but left for the next cycle (the per-cycle caps). */
  waiting: { topics: number; groups: number };
  durationMs: number;
  /** Where the cycle's time went (ms): catalog sync, metadata, end offsets, full refresh, groups, writes, housekeeping, steps. */
  phases: Record<string, number>;
  unknown: string[];
}

/** What a step sees of the cycle that just ran. */
export interface ObservationCycle {
  now: number;
  db: Db;
  cluster: KafkaCluster;
  log: Logger;
  summary: ObservationSummary;
  /** Topic rows written this cycle (moved, new, or due for refresh). */
  topics: readonly TopicRow[];
  /** Group rows written this cycle. */
  groups: readonly GroupRow[];
  /** Every observed topic with its latest figures per partition (read-only). */
  states: ReadonlyMap<string, Readonly<TopicState>>;
}

export interface ObservationStep {
  name: string;
  /** Run at most this often (default: every cycle). */
  everyMs?: number;
  run(cycle: ObservationCycle): Promise<void>;
}

const MINUTE = 60_000;

function sumOrNull(values: (bigint | null)[]): bigint | null {
  let total = 0n;
  for (const v of values) {
    if (v === null) return null;
    total += v;
  }
  return total;
}

/**
 * Topic-level LATEST_TIERED: Kafka answers −1 for a partition with nothing in
 * remote storage, so a plain sum would go negative. We sum the partitions that
 * have tiered data and keep −1 for "nothing tiered anywhere".
 */
function tieredTotal(values: (bigint | null)[]): bigint | null {
  if (values.some((v) => v === null)) return null;
  const tiered = values.filter((v): v is bigint => v !== null && v >= 0n);
  return tiered.length === 0 ? -1n : tiered.reduce((a, b) => a + b, 0n);
}

const str = (v: bigint | null) => (v === null ? null : v.toString());

export class Observer {
  readonly refreshRoundMs: number;
  private readonly maxTopics: number;
  private readonly maxGroups: number;
  private readonly metadataRefreshMs: number;
  private readonly catalog: CatalogView;
  private readonly states = new TopicStates();
  private readonly groups = new GroupStates();
  private readonly steps: { step: ObservationStep; lastAt: number }[] = [];
  private lastMetadataAt = 0;
  private lastSweep = 0;
  private unknown = new Set<string>();
  lastSummary: ObservationSummary | null = null;
  lastError: string | null = null;
  /** The error of the last failed cycle (which dependency failed: health/outages.ts). */
  lastFailure: unknown = null;
  /** Last error per step (absent: the step's last run succeeded). */
  readonly stepErrors = new Map<string, string>();

  constructor(
    private readonly db: Db,
    private readonly cluster: KafkaCluster,
    private readonly options: ObserverOptions,
    private readonly log: Logger,
  ) {
    this.refreshRoundMs = options.refreshRoundMs ?? 60_000;
    this.maxTopics = options.maxTopicsPerCycle ?? 1_000;
    this.maxGroups = options.maxGroupsPerCycle ?? 2_500;
    this.metadataRefreshMs = options.metadataRefreshMs ?? 60_000;
    this.catalog = new CatalogView(options.catalogReloadMs ?? 300_000);
  }

  /** Adds per-cycle work (alerts, lineage, ...): runs after each cycle's writes, in the order added. */
  use(step: ObservationStep): void {
    this.steps.push({ step, lastAt: 0 });
  }

  async observeOnce(now = Date.now()): Promise<ObservationSummary> {
    const started = Date.now();
    const phases: Record<string, number> = {};
    let mark = started;
    const phase = (name: string) => {
      const t = Date.now();
      phases[name] = t - mark;
      mark = t;
    };
    const changes = await this.catalog.sync(this.db, now);
    phase("catalog");
    const removedTopics = new Set(changes.removed);
    for (const t of removedTopics) this.states.delete(t);

    // Metadata: new topics now, every topic once per interval.
    const allDue = now - this.lastMetadataAt >= this.metadataRefreshMs;
    const ask = allDue ? [...this.catalog.topics.keys()] : [...this.catalog.topics.keys()].filter((t) => !this.states.get(t));
    if (ask.length > 0) {
      const counts = await this.cluster.partitionCounts(ask);
      for (const topic of ask) {
        const n = counts.get(topic);
        const productId = this.catalog.topics.get(topic);
        if (n === undefined || productId === undefined) {
          // Not on the cluster (not created yet, or deleted by hand): nothing to observe, and no stale row.
          if (this.states.get(topic)) removedTopics.add(topic);
          this.states.delete(topic);
        } else this.states.ensure(topic, productId, n);
      }
      if (allDue) this.lastMetadataAt = now;
    }
    phase("metadata");

    // End offsets of every partition: what moved.
    const all = [...this.states.byTopic.values()].map((s) => ({ topic: s.topic, partitions: s.partitions.length }));
    let partitionCount = 0;
    const latest = await this.cluster.listOffsets(all, "latest");
    for (const s of this.states.byTopic.values()) {
      const values = latest.get(s.topic);
      for (let p = 0; p < s.partitions.length; p++) this.states.recordLatest(s, p, values?.[p] ?? null, now);
      partitionCount += s.partitions.length;
    }
    phase("endOffsets");

    const due = this.states.due(now, this.refreshRoundMs, this.maxTopics);
    const topicRows = await this.refresh(due.topics, now);
    phase("refresh");
    const groupCycle = await this.groups.observe(this.cluster, this.catalog, this.states, now, this.refreshRoundMs, this.maxGroups);
    const goneGroups = this.groups.gone(groupCycle.current);
    phase("groups");

    await writeCycle(
      this.db,
      {
        topics: topicRows,
        groups: groupCycle.rows,
        removedTopics: [...removedTopics],
        removedGroups: goneGroups.map((k) => {
          const [groupId = "", topic = ""] = k.split("\u0000");
          return { groupId, topic };
        }),
      },
      now,
    );
    for (const s of due.topics) {
      s.refreshedAt = now;
      s.moved = false;
    }
    groupCycle.markWritten();
    this.groups.forget(goneGroups);
    phase("write");

    if (now - this.lastSweep >= MINUTE) {
      this.lastSweep = now;
      const swept = await sweep(
        this.db,
        {
          topics: [...this.states.byTopic.keys()],
          groups: [...groupCycle.current].map((k) => {
            const [groupId = "", topic = ""] = k.split("\u0000");
            return { groupId, topic };
          }),
        },
        new Date(now - this.options.historyHours * 3600_000),
      );
      if (swept.topics + swept.groups + swept.topicSamples + swept.groupSamples > 0) this.log.debug("observation housekeeping", swept);
    }
    phase("housekeeping");

    const summary: ObservationSummary = {
      topics: this.states.size,
      partitions: partitionCount,
      groups: groupCycle.groups,
      written: { topics: topicRows.length, groups: groupCycle.rows.length },
      waiting: { topics: due.waiting, groups: groupCycle.waiting },
      durationMs: Date.now() - started,
      phases,
      unknown: [...this.unknown].sort(),
    };
    await this.runSteps({ now, db: this.db, cluster: this.cluster, log: this.log, summary, topics: topicRows, groups: groupCycle.rows, states: this.states.byTopic });
    phase("steps");
    summary.durationMs = Date.now() - started;
    this.lastSummary = summary;
    this.lastError = null;
    return summary;
  }

  /** Reads the full figures of these topics and builds their rows. */
  private async refresh(topics: TopicState[], now: number): Promise<TopicRow[]> {
    if (topics.length === 0) return [];
    const refs = topics.map((s) => ({ topic: s.topic, partitions: s.partitions.length }));
    const [earliest, earliestLocal, latestTiered, local, remote] = await Promise.all([
      this.cluster.listOffsets(refs, "earliest"),
      this.cluster.listOffsets(refs, "earliestLocal"),
      this.cluster.listOffsets(refs, "latestTiered"),
      this.cluster.localBytes(refs),
      this.cluster.remoteBytes(refs),
    ]);
    const unknown = new Set<string>();
    if (local === null) unknown.add("localBytes");
    if (remote === null) unknown.add("remoteBytes");
    const rows: TopicRow[] = [];
    for (const s of topics) {
      const [e, el, lt, lb, rb] = [earliest.get(s.topic), earliestLocal.get(s.topic), latestTiered.get(s.topic), local?.get(s.topic), remote?.get(s.topic)];
      s.partitions.forEach((p, partition) => {
        p.earliest = e?.[partition] ?? null;
        p.earliestLocal = el?.[partition] ?? null;
        p.latestTiered = lt?.[partition] ?? null;
        p.localBytes = local ? (lb?.[partition] ?? 0n) : null;
        p.remoteBytes = remote ? (rb?.[partition] ?? 0n) : null;
        if (p.earliestLocal === null) unknown.add("earliestLocalOffset");
        if (p.latestTiered === null) unknown.add("latestTieredOffset");
      });
      const parts = s.partitions;
      const rate = this.states.rate(s, now);
      s.lastRate = rate;
      rows.push({
        topic: s.topic,
        productId: s.productId,
        partitions: parts.length,
        endOffset: sumOrNull(parts.map((p) => p.latest)) ?? 0n,
        earliestOffset: sumOrNull(parts.map((p) => p.earliest)) ?? 0n,
        earliestLocalOffset: sumOrNull(parts.map((p) => p.earliestLocal)),
        latestTieredOffset: tieredTotal(parts.map((p) => p.latestTiered)),
        localBytes: sumOrNull(parts.map((p) => p.localBytes)),
        remoteBytes: sumOrNull(parts.map((p) => p.remoteBytes)),
        messagesPerSecond: rate,
        detail: parts.map((p, partition) => ({
          partition,
          endOffset: str(p.latest),
          earliestOffset: str(p.earliest),
          earliestLocalOffset: str(p.earliestLocal),
          latestTieredOffset: str(p.latestTiered),
          localBytes: str(p.localBytes),
          remoteBytes: str(p.remoteBytes),
        })),
      });
    }
    this.unknown = unknown;
    return rows;
  }

  private async runSteps(cycle: ObservationCycle): Promise<void> {
    for (const entry of this.steps) {
      if (entry.step.everyMs !== undefined && cycle.now - entry.lastAt < entry.step.everyMs) continue;
      entry.lastAt = cycle.now;
      try {
        await entry.step.run(cycle);
        this.stepErrors.delete(entry.step.name);
      } catch (error) {
        this.stepErrors.set(entry.step.name, errorMessage(error));
        this.log.warn("observation step failed", { step: entry.step.name, error: errorMessage(error) });
      }
    }
  }

  /** Runs observeOnce, logging instead of throwing (the loop keeps going while Kafka is down). */
  async safeObserve(): Promise<ObservationSummary | null> {
    try {
      return await this.observeOnce();
    } catch (error) {
      this.lastError = errorMessage(error);
      this.lastFailure = error;
      this.log.warn("observation cycle failed", { error: this.lastError });
      return null;
    }
  }
}
