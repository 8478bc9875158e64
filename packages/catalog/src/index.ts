export { type ActingUser } from "./action.ts";
export { loadActor, type Actor } from "./actor.ts";
export { authenticateLocalUser, upsertSsoUser } from "./authenticate.ts";
export { createPrismaClient, type Db, type Tx } from "./db.ts";
export * from "./errors.ts";
export * from "./naming.ts";
export { can, canInDomain, hasGlobal, PERMISSIONS, permissionSummary, type Permission } from "./permissions.ts";
export { hashPassword, verifyPassword } from "./passwords.ts";
export { prettySchema, schemaDefinitionProblem } from "./schema-definition.ts";
export * from "./schema/index.ts";
export { AVRO_PII_ATTRIBUTE, JSON_SCHEMA_PII_KEYWORD, piiFieldPaths } from "./schema/pii.ts";
export { decryptSecret, encryptSecret, generatePassword, parseSecretsKey } from "./secrets.ts";
export { toJson, type Jsonish } from "./serialize.ts";
export { TASK_KINDS, TASK_LABELS, taskLabel, topicConfigs, type TaskKind } from "./tasks.ts";
export * from "./transitions.ts";
export * from "./validation.ts";

export { approveProduct } from "./actions/approve-product.ts";
export { approveSubscription } from "./actions/approve-subscription.ts";
export { createServiceAccount } from "./actions/create-service-account.ts";
export { deprecateProduct } from "./actions/deprecate-product.ts";
export { registerProduct } from "./actions/register-product.ts";
export { rejectProduct } from "./actions/reject-product.ts";
export { rejectSubscription } from "./actions/reject-subscription.ts";
export { requestCredentialRotation } from "./actions/request-credential-rotation.ts";
export { requestSubscription } from "./actions/request-subscription.ts";
export { retryTask } from "./actions/retry-provisioning-task.ts";
export { revealCredentialOnce } from "./actions/reveal-credentials.ts";
export { revokeSubscription } from "./actions/revoke-subscription.ts";
export { submitForReview } from "./actions/submit-for-review.ts";
export { updateProduct } from "./actions/update-product.ts";

export { listAuditEvents } from "./queries/audit-log.ts";
export { getProduct } from "./queries/get-product.ts";
export { myDomains, subscribableAccounts } from "./queries/my-domain.ts";
export { CHART_WINDOW_MS, platformOverview, productObservations, subscriptionDetail } from "./queries/observations.ts";
export { reviewQueue } from "./queries/review-queue.ts";
export { catalogFacets, searchProducts } from "./queries/search-products.ts";

// Schema governance: versions, reviews, major versions, registry ids.
export { approveSchemaVersion } from "./actions/approve-schema-version.ts";
export { proposeSchemaVersion } from "./actions/propose-schema-version.ts";
export { publishMajorVersion } from "./actions/publish-major-version.ts";
export { rejectSchemaVersion } from "./actions/reject-schema-version.ts";
export { requestSuccessorAccess } from "./actions/request-successor-access.ts";
export { checkSchemaVersion } from "./queries/check-schema-version.ts";
export { pendingSchemaVersions, productReview, schemaVersionReview } from "./queries/schema-review.ts";
export { listSchemaVersions, subscriptionSuccessorNotice, successorNotices } from "./queries/schema-versions.ts";
export { assignRegistryIds, registrySchemaId } from "./schema-registry/registry-ids.ts";
