/*
 * One factory for every TanStack Query key, so a mutation invalidates exactly
 * what it changed: e.g. approving a product touches its detail, the lists and
 * the review queue — nothing else.
 */
export interface ProductFilters {
  q?: string;
  domain?: string;
  classification?: string;
  tag?: string;
  status?: string;
  sort?: string;
  page?: number;
}

export interface AuditFilters {
  entityType?: string;
  entityId?: string;
  actor?: string;
  action?: string;
  /** `mcp`: only what agents did through the MCP server. */
  via?: string;
  from?: string;
  to?: string;
  page?: number;
}

export const queryKeys = {
  products: {
    all: ["products"] as const,
    lists: () => [...queryKeys.products.all, "list"] as const,
    list: (filters: ProductFilters) => [...queryKeys.products.lists(), filters] as const,
    details: () => [...queryKeys.products.all, "detail"] as const,
    detail: (id: string) => [...queryKeys.products.details(), id] as const,
    /** Live cluster figures of one product (polled), apart from its catalog detail. */
    observations: (id: string) => [...queryKeys.products.all, "observations", id] as const,
    retirement: (id: string) => [...queryKeys.products.all, "retirement", id] as const,
    /** A derived product's Flink job as the worker last observed it (polled). */
    job: (id: string) => [...queryKeys.products.all, "job", id] as const,
    slo: (id: string) => [...queryKeys.products.all, "slo", id] as const,
    schemaVersions: (id: string) => [...queryKeys.products.all, "schema-versions", id] as const,
    review: (id: string) => [...queryKeys.products.all, "review", id] as const,
    messages: (id: string, params: Record<string, string>) => [...queryKeys.products.all, "messages", id, params] as const,
    state: (id: string) => [...queryKeys.products.all, "state", id] as const,
    /** The dead-letter topic of one product (owners only, polled while on screen). */
    deadLetters: (id: string) => [...queryKeys.products.all, "dlq", id] as const,
    /** Observed quality (issue 29) over a window. */
    quality: (id: string, window: string) => [...queryKeys.products.all, "quality", id, window] as const,
    /** Its redrive requests (owners and governance; polled while one is queued or running). */
    redrives: (id: string) => [...queryKeys.products.all, "dlq", id, "redrives"] as const,
    stateKeys: (id: string, params: Record<string, string>) => [...queryKeys.products.all, "state", id, "keys", params] as const,
    stateKey: (id: string, key: string, encoding: string) => [...queryKeys.products.all, "state", id, "key", key, encoding] as const,
  },
  schemaVersions: {
    all: ["schema-versions"] as const,
    review: (id: string) => [...queryKeys.schemaVersions.all, "review", id] as const,
  },
  subscriptions: {
    all: ["subscriptions"] as const,
    detail: (id: string) => [...queryKeys.subscriptions.all, "detail", id] as const,
    successor: (id: string) => [...queryKeys.subscriptions.all, "successor", id] as const,
    superseded: () => [...queryKeys.subscriptions.all, "superseded"] as const,
    replays: (id: string) => [...queryKeys.subscriptions.all, "replays", id] as const,
    objectives: (id: string) => [...queryKeys.subscriptions.all, "objectives", id] as const,
  },
  notifications: {
    all: ["notifications"] as const,
    list: (filters: { unread?: boolean; limit?: number }) => [...queryKeys.notifications.all, filters] as const,
  },
  webhooks: {
    all: ["webhooks"] as const,
    domain: (domainId: string) => [...queryKeys.webhooks.all, "domain", domainId] as const,
    deliveries: (webhookId: string) => [...queryKeys.webhooks.all, "deliveries", webhookId] as const,
  },
  platform: ["platform"] as const,
  reviewQueue: ["review-queue"] as const,
  myDomains: ["my-domains"] as const,
  tokens: ["tokens"] as const,
  serviceAccounts: ["service-accounts"] as const,
  admin: {
    all: ["admin"] as const,
    domains: () => [...queryKeys.admin.all, "domains"] as const,
    members: (domainId: string) => [...queryKeys.admin.all, "members", domainId] as const,
    users: (filters: { q?: string; page?: number }) => [...queryKeys.admin.all, "users", filters] as const,
    ssoMappings: () => [...queryKeys.admin.all, "sso-mappings"] as const,
    reservedPrincipals: () => [...queryKeys.admin.all, "reserved-principals"] as const,
  },
  /** The worker's schema inference for an unmanaged topic (claim form; polled while pending). */
  schemaInference: (topic: string) => ["schema-inference", topic] as const,
  audit: {
    all: ["audit-events"] as const,
    list: (filters: AuditFilters) => [...queryKeys.audit.all, filters] as const,
  },
} as const;
