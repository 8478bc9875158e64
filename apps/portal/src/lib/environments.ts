/*
 * The query keys of the environments views. Cluster keys live under the admin
 * keys so every admin mutation refreshes them. The answers' types come from
 * the catalog (lib/api-types.ts), so the UI cannot drift from the server.
 */
export type { ClusterInfo, EnvironmentState, ProductEnvironmentsData as ProductEnvironments } from "./api-types";

export const environmentKeys = {
  clusters: () => ["admin", "clusters"] as const,
  product: (productId: string) => ["environments", productId] as const,
};
