/*
 * Response types of /api/v1, derived from the catalog's own return types after
 * JSON conversion, so the UI cannot drift from the server. Type-only imports:
 * nothing of the catalog's server code reaches the browser.
 */
import type {
  readDeadLetters,
  testQualityRules,
  qualityRulesImpact,
  setQualityRules,
  listRedrives,
  previewRedrive,
  requestRedrive,
  listReservedPrincipals,
  recertificationQueue,
  applyContracts,
  planContracts,
  lineageGraph,
  listClusterTopics,
  productDrift,
  domainMembers,
  listDomains,
  listSsoGroupMappings,
  listUsers,
  getProduct,
  Jsonish,
  listApiTokens,
  listAuditEvents,
  myDomains,
  platformOverview,
  policyOverview,
  productObservations,
  subscriptionDetail,
  permissionSummary,
  reviewQueue,
  searchProducts,
  withQualityScores,
  readProductQuality,
  subscribableAccounts,
  Actor,
  checkSchemaVersion,
  listSchemaVersions,
  pendingSchemaVersions,
  productReview,
  schemaVersionReview,
  subscriptionSuccessorNotice,
  successorNotices,
  listNotifications,
  domainWebhooks,
  webhookDeliveries,
  productRetirement,
  browseMessages,
  stateViewStatus,
  lookupStateKey,
  browseStateKeys,
  requestReplay,
  listReplays,
  listClusters,
  productEnvironments,
  productJob,
} from "@kappa/catalog";

export type ProductDetail = Jsonish<Awaited<ReturnType<typeof getProduct>>>;
export type ProductSearchResult = Jsonish<Awaited<ReturnType<typeof withQualityScores<Awaited<ReturnType<typeof searchProducts>>>>>>;
export type ProductListItem = ProductSearchResult["items"][number];
export type PendingSchemaVersion = Jsonish<Awaited<ReturnType<typeof pendingSchemaVersions>>>[number];
export type ReviewQueue = Jsonish<Awaited<ReturnType<typeof reviewQueue>>> & { schemaVersions: PendingSchemaVersion[] };
export type SchemaVersionList = Jsonish<Awaited<ReturnType<typeof listSchemaVersions>>>;
export type SchemaCheck = Jsonish<Awaited<ReturnType<typeof checkSchemaVersion>>>;
export type SchemaVersionReviewData = Jsonish<Awaited<ReturnType<typeof schemaVersionReview>>>;
export type ProductReviewData = Jsonish<Awaited<ReturnType<typeof productReview>>>;
export type SuccessorNotice = Jsonish<Awaited<ReturnType<typeof successorNotices>>>[number];
export type SubscriptionSuccessor = Jsonish<Awaited<ReturnType<typeof subscriptionSuccessorNotice>>>;
export type MyDomain = Jsonish<Awaited<ReturnType<typeof myDomains>>>[number];
export type ServiceAccountOption = Jsonish<Awaited<ReturnType<typeof subscribableAccounts>>>[number];
export type PolicyOverview = Jsonish<Awaited<ReturnType<typeof policyOverview>>>;
export type ApiTokenList = Jsonish<Awaited<ReturnType<typeof listApiTokens>>>;
export type ContractPlan = Jsonish<Awaited<ReturnType<typeof planContracts>>>;
export type ContractApplyResult = Jsonish<Awaited<ReturnType<typeof applyContracts>>>;
export type AuditPage = Jsonish<Awaited<ReturnType<typeof listAuditEvents>>>;
export type AuditEventRow = AuditPage["items"][number];
export type RecertificationList = Jsonish<Awaited<ReturnType<typeof recertificationQueue>>>;
export type LineageGraphData = Jsonish<Awaited<ReturnType<typeof lineageGraph>>>;
export type ClusterTopicPage = Jsonish<Awaited<ReturnType<typeof listClusterTopics>>>;
export type ClusterTopicRow = ClusterTopicPage["items"][number];
export type ProductDrift = Jsonish<Awaited<ReturnType<typeof productDrift>>>;
export type AdminDomain = Jsonish<Awaited<ReturnType<typeof listDomains>>>[number];
export type DomainMembers = Jsonish<Awaited<ReturnType<typeof domainMembers>>>;
export type UserPage = Jsonish<Awaited<ReturnType<typeof listUsers>>>;
export type AdminUser = UserPage["items"][number];
export type SsoGroupMapping = Jsonish<Awaited<ReturnType<typeof listSsoGroupMappings>>>[number];
export type PermissionSummary = ReturnType<typeof permissionSummary>;
export type Me = Pick<Actor, "id" | "email" | "name" | "globalRole"> & { memberships: Actor["memberships"]; permissions: PermissionSummary };
export type ProductJob = Jsonish<Awaited<ReturnType<typeof productJob>>>;
/** POST /api/v1/derived/validate's answer (the route's own selection of validateDerivedStatement's result). */
export interface DerivedValidationResult {
  /** JSON Schema; each property carries Flink's type as `x-flink-type` (a nullable one inside `anyOf`). */
  outputSchema: { type?: string; properties?: Record<string, Record<string, unknown>>; required?: string[] };
  inputs: { productId: string; topicName: string }[];
  plan: string;
  minimumClassification: string;
}
export type ProductObservations = Jsonish<Awaited<ReturnType<typeof productObservations>>>;
export type ConsumerLag = ProductObservations["consumers"][number];
export type SubscriptionDetail = Jsonish<Awaited<ReturnType<typeof subscriptionDetail>>>;
export type PlatformOverview = Jsonish<Awaited<ReturnType<typeof platformOverview>>>;
export type PlatformTask = PlatformOverview["failed"][number];
export interface RevealedCredentials {
  username: string;
  password: string;
  mechanism: "SCRAM-SHA-512";
  issuedAt: string | null;
}
export type NotificationPage = Jsonish<Awaited<ReturnType<typeof listNotifications>>>;
export type NotificationItem = NotificationPage["notifications"][number];
export type DomainWebhook = Jsonish<Awaited<ReturnType<typeof domainWebhooks>>>[number];
export type WebhookLog = Jsonish<Awaited<ReturnType<typeof webhookDeliveries>>>;
export type ProductRetirement = Jsonish<Awaited<ReturnType<typeof productRetirement>>>;
export type MessagePage = Jsonish<Awaited<ReturnType<typeof browseMessages>>>;
export type BrowsedRecord = MessagePage["records"][number];
export type DecodedValueJson = BrowsedRecord["value"];
export type DeadLetterPage = Jsonish<Awaited<ReturnType<typeof readDeadLetters>>>;
export type DeadLetterRecord = DeadLetterPage["records"][number];
export type RuleTestResult = Jsonish<Awaited<ReturnType<typeof testQualityRules>>>;
export type RulesImpact = Jsonish<Awaited<ReturnType<typeof qualityRulesImpact>>>;
export type SetQualityRulesAnswer = Jsonish<Awaited<ReturnType<typeof setQualityRules>>>;
export type RedrivePreview = Jsonish<Awaited<ReturnType<typeof previewRedrive>>>;
export type RedriveRequested = Jsonish<Awaited<ReturnType<typeof requestRedrive>>>;
export type RedriveList = Jsonish<Awaited<ReturnType<typeof listRedrives>>>;
export type Redrive = RedriveList["redrives"][number];
export type StateViewStatus = Jsonish<Awaited<ReturnType<typeof stateViewStatus>>>;
export type StateEntryJson = Jsonish<Awaited<ReturnType<typeof lookupStateKey>>>;
export type StateKeysPage = Jsonish<Awaited<ReturnType<typeof browseStateKeys>>>;
export type ReplayAnswer = Jsonish<Awaited<ReturnType<typeof requestReplay>>>;
export type ReplayItem = Jsonish<Awaited<ReturnType<typeof listReplays>>>[number];

/** GET/POST /api/v1/cluster/topics/schema-inference: what the worker inferred from sample records (never the records). */
export interface TopicSchemaInference {
  topic: string;
  status: "PENDING" | "DONE" | "FAILED";
  requestedAt: string;
  sampled: number;
  inferred: boolean;
  format: "AVRO" | "JSON_SCHEMA" | null;
  definition: string | null;
  registrySchemaId: number | null;
  explanation: string;
  lastError: string | null;
  finishedAt: string | null;
}

/** GET /api/v1/reserved-principals (platform admins). */
export type ReservedPrincipals = Jsonish<Awaited<ReturnType<typeof listReservedPrincipals>>>;
export type ClusterInfo = Jsonish<Awaited<ReturnType<typeof listClusters>>>[number];
export type ProductEnvironmentsData = Jsonish<Awaited<ReturnType<typeof productEnvironments>>>;
export type EnvironmentState = ProductEnvironmentsData["environments"][number];
export type ProductQualityView = Jsonish<Awaited<ReturnType<typeof readProductQuality>>>;
