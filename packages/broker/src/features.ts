// Feature flags (KIP-584) as ApiVersions reports them, at Apache Kafka 4.1's levels
// for what this broker implements. They never change while it runs (there is no
// UpdateFeatures), so the finalized epoch is a constant.
//
// - metadata.version: Kafka 4.1 supports 3.3-IV3 (7, MetadataVersion.MINIMUM_VERSION)
//   to 4.1-IV1 (27, LATEST_PRODUCTION) and a new 4.1 cluster is finalized at 27.
// - kraft.version 0 only: there is no KRaft quorum (let alone a dynamic one, level 1).
// - group.version 0-1, finalized at 1: the consumer group protocol of KIP-848 (level 1,
//   Kafka 4.0's GV_1) is served, as on a new Kafka 4.1 cluster.
// - transaction.version 0 only: KIP-890 part 2 (level 2) is not served, and level 1
//   changes only Kafka's own transaction log records, which this broker does not have.
// Kafka leaves level-0 features out of the finalized list; so does this broker.

export interface SupportedFeature {
  name: string;
  minVersion: number;
  maxVersion: number;
}

export interface FinalizedFeature {
  name: string;
  /** Kafka sets min = max = the finalized level. */
  minVersionLevel: number;
  maxVersionLevel: number;
}

export const METADATA_VERSION_4_1_IV1 = 27;
export const METADATA_VERSION_MINIMUM = 7;
/** group.version 1: KIP-848's consumer group protocol. */
export const GROUP_VERSION_1 = 1;

export const SUPPORTED_FEATURES: readonly SupportedFeature[] = [
  { name: "group.version", minVersion: 0, maxVersion: GROUP_VERSION_1 },
  { name: "kraft.version", minVersion: 0, maxVersion: 0 },
  { name: "metadata.version", minVersion: METADATA_VERSION_MINIMUM, maxVersion: METADATA_VERSION_4_1_IV1 },
  { name: "transaction.version", minVersion: 0, maxVersion: 0 },
];

export const FINALIZED_FEATURES: readonly FinalizedFeature[] = [
  { name: "group.version", minVersionLevel: GROUP_VERSION_1, maxVersionLevel: GROUP_VERSION_1 },
  { name: "metadata.version", minVersionLevel: METADATA_VERSION_4_1_IV1, maxVersionLevel: METADATA_VERSION_4_1_IV1 },
];

/** Kafka's finalized epoch is the metadata log offset of the last feature change; here the features never change. */
export const FINALIZED_FEATURES_EPOCH = 0n;

/**
 * SupportedFeatures for an ApiVersions version: before v4 (KIP-1022), features whose
 * minimum is 0 are left out, because older clients refuse a supported range starting at 0.
 */
export function supportedFeaturesFor(apiVersion: number): SupportedFeature[] {
  return SUPPORTED_FEATURES.filter((f) => apiVersion >= 4 || f.minVersion > 0);
}
