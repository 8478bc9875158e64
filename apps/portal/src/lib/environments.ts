/*
 * What the environments API answers (catalog environments/clusters.ts and
 * deployments.ts), and the query keys of the environments views. Cluster keys
 * live under the admin keys so every admin mutation refreshes them.
 */

export interface ClusterInfo {
  id: string;
  environment: string;
  primary: boolean;
  bootstrap: string;
  securityProtocol: string;
  saslMechanism: string;
  adminUser: string | null;
  hasPassword: boolean;
  maxPartitions: number | null;
  minRetentionMs: number | null;
  lastSeenAt: string | null;
  lastError: string | null;
  createdAt: string;
}

export interface EnvironmentState {
  environment: string;
  primary: boolean;
  status: string;
  topicName: string;
  partitions: number;
  retentionMs: string;
  schemaVersions: number[];
  deploymentId: string | null;
  requestedBy: string | null;
  decidedBy: string | null;
  decisionReason: string | null;
  lastError: string | null;
  provisionedAt: string | null;
  canDecide: boolean;
}

export interface ProductEnvironments {
  productId: string;
  environments: EnvironmentState[];
  promotableTo: string[];
}

export const environmentKeys = {
  clusters: () => ["admin", "clusters"] as const,
  product: (productId: string) => ["environments", productId] as const,
};
