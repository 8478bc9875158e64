// Opening one partition's log: its segments (recovering the active one after
// an unclean shutdown), the log start offset reconciled with the data that is
// really there (local segments and remote storage), and the producer state
// (snapshot plus replay). Part of PartitionLog (partition-log.ts).
import type { FileHandleCache } from "./files.ts";
import { fsyncDir } from "./files.ts";
import { loadProducerState } from "./producer-snapshot.ts";
import type { ProducerStateTable } from "./producer-state.ts";
import { loadSegments } from "./segment-loader.ts";
import { Segment } from "./segment.ts";
import type { PartitionTier } from "./tiered/types.ts";

export interface PartitionLoadInput {
  dir: string;
  files: FileHandleCache;
  indexIntervalBytes: number;
  /** Durable log start offset from metadata. */
  logStartOffset: number;
  persistLogStartOffset: (offset: number) => Promise<void>;
  recover: boolean;
  now: number;
  tier: PartitionTier | null;
}

export interface LoadedPartition {
  segments: Segment[];
  logStartOffset: number;
  logEndOffset: number;
  producers: ProducerStateTable;
  truncatedBytes: number;
  segmentsOpened: number;
}

export async function loadPartition(input: PartitionLoadInput): Promise<LoadedPartition> {
  const { dir, files, indexIntervalBytes, recover, now, tier } = input;
  let lso = input.logStartOffset;
  const loaded = await loadSegments(dir, files, indexIntervalBytes, lso, recover, now);
  let segments = loaded.segments;
  let leo = segments[segments.length - 1]!.nextOffset;

  if (lso > leo) {
    // Records were deleted up to an offset the (truncated) log never reached:
    // restart the log empty at the log start offset, as Kafka does.
    for (const s of segments) await s.deleteFiles();
    segments = [await Segment.create(dir, lso, files, indexIntervalBytes, now)];
    await fsyncDir(dir);
    leo = lso;
  }
  // Offsets below the first local segment may still be readable from remote
  // storage; the log start offset only rises to where the data really starts.
  const remoteStart = tier?.earliestOffset() ?? null;
  const dataStart = remoteStart === null ? segments[0]!.baseOffset : Math.min(remoteStart, segments[0]!.baseOffset);
  if (lso < dataStart) {
    lso = dataStart;
    await input.persistLogStartOffset(lso);
  }
  // Segments wholly below the log start offset were due for deletion when we stopped.
  while (segments.length > 1 && segments[1]!.baseOffset <= lso) {
    await segments.shift()!.deleteFiles();
  }
  const producers = await loadProducerState(dir, segments, leo);
  return { segments, logStartOffset: lso, logEndOffset: leo, producers, truncatedBytes: loaded.truncatedBytes, segmentsOpened: loaded.segmentsOpened };
}
