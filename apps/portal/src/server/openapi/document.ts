import { z } from "zod";
import {
  addMemberInput,
  changeMemberRoleInput,
  claimAclsInput,
  claimTopicInput,
  createDomainInput,
  promoteProductInput,
  registerClusterInput,
  updateClusterInput,
  keyErasureInput,
  partitionIncreaseInput,
  setProductQuotaClassInput,
  productInputsInput,
  recertifyInput,
  subscriptionExpiryInput,
  renameDomainInput,
  setGlobalRoleInput,
  ssoGroupMappingInput,
  approvalCommentInput,
  approveSchemaVersionInput,
  auditQueryInput,
  browseMessagesInput,
  stateQueryInput,
  stateKeyInput,
  auditExportInput,
  clusterTopicsInput,
  lineageQueryInput,
  listUsersInput,
  replayInput,
  derivedReplayInput,
  derivedStatementChangeInput,
  compatibilityModeChangeInput,
  setQualityRulesInput,
  testQualityRulesInput,
  requestRedriveInput,
  redrivePreviewInput,
  decideRedriveInput,
  proposeSchemaVersionInput,
  publishMajorVersionInput,
  contractFilesInput,
  costsQueryInput,
  createApiTokenInput,
  createServiceAccountInput,
  createWebhookInput,
  listNotificationsInput,
  markNotificationsReadInput,
  retireProductInput,
  subscriptionObjectiveInput,
  silenceAlertInput,
  updateWebhookInput,
  deprecateProductInput,
  addReservedPrincipalInput,
  reasonInput,
  rejectQuotaClassInput,
  registerProductInput,
  derivedStatementInput,
  requestSubscriptionInput,
  schemaInferenceInput,
  searchProductsInput,
  productQualityInput,
  updatePolicyInput,
  updateProductInput,
  textPattern,
} from "@kappa/catalog";
import { MAX_PARAM_LENGTH } from "@/lib/request-guard";
import { costsResponse, productCostResponse } from "./costs";

/*
 * The OpenAPI 3.1 description of /api/v1, generated from the same zod schemas
 * the catalog actions parse their input with (`z.toJSONSchema`, zod 4's own
 * JSON Schema output: OpenAPI 3.1 uses JSON Schema 2020-12, so no converter
 * library and no second copy of the rules). Responses are described with the
 * small zod schemas below. Every route under src/app/api/v1 must have an entry
 * here: the completeness test fails otherwise.
 */

type Method = "get" | "post" | "patch" | "put" | "delete";

export interface RouteDoc {
  method: Method;
  /** OpenAPI path: `/products/{id}` (relative to /api/v1). */
  path: string;
  summary: string;
  tag: string;
  /** Scope a token needs for this call (reads: any token). */
  scope?: string;
  body?: z.ZodType;
  query?: z.ZodObject;
  response?: z.ZodType;
  /** Status of a success (default 200). */
  status?: number;
  /** Content types of the success besides JSON. */
  alsoYaml?: boolean;
  /** The success's content types when they are not JSON (the audit export: text/csv or JSON by `format`). */
  produces?: Record<string, { schema: Record<string, unknown> }>;
  public?: boolean;
  /** 503 NOT_CONFIGURED is an answer: the route reads Kafka through the message browser's principal, which the worker issues a few seconds after start. */
  readsKafka?: boolean;
}

// ---- responses ---------------------------------------------------------------

// Issue 30, finding 17: every error body carries `requestId` (and some a structured detail such as
// `retryAfterSeconds` or a schema's `issues`), which the strict object documented before forbade.
const errorBody = z
  .object({
    error: z.looseObject({
      code: z.string().meta({ description: "Stable error code: VALIDATION_FAILED, UNAUTHENTICATED, FORBIDDEN, NOT_FOUND, METHOD_NOT_ALLOWED, CONFLICT, POLICY_VIOLATION, PAYLOAD_TOO_LARGE, RATE_LIMITED, ..." }),
      message: z.string(),
      requestId: z.string().optional().meta({ description: "This request's id (also the `x-request-id` header): quote it to an operator; a 500 says nothing else." }),
      fields: z.record(z.string(), z.array(z.string())).optional().meta({ description: "Messages per input field (`name`, `schema.definition`, ...)." }),
      policy: z
        .object({ version: z.number().int(), event: z.string(), rules: z.array(z.string()), results: z.array(z.looseObject({})) })
        .optional()
        .meta({ description: "On POLICY_VIOLATION: the policy version and the ids of the rules that refused the change." }),
    }).meta({ description: "More members carry a refusal's structured detail (e.g. `retryAfterSeconds` on 429 and 503, `issues` on INCOMPATIBLE_SCHEMA)." }),
  })
  .meta({ id: "Error" });

const ruleResult = z
  .object({ ruleId: z.string(), description: z.string(), severity: z.enum(["error", "warn"]), outcome: z.enum(["pass", "warn", "fail"]), message: z.string(), field: z.string().optional() })
  .meta({ id: "RuleResult" });

const product = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    topicName: z.string(),
    status: z.enum(["DRAFT", "IN_REVIEW", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED", "RETIRED", "REJECTED"]),
    classification: z.enum(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"]),
    majorVersion: z.number().int(),
    partitions: z.number().int(),
    retentionMs: z.number().int(),
    keyFields: z.array(z.string()),
    contractSource: z.string().nullable(),
  })
  .meta({ id: "Product", description: "A data product (more fields are present than listed)." });

const jobCommand = z
  .object({
    id: z.string(),
    kind: z.enum(["PAUSE", "RESUME", "REPLAY", "STATEMENT"]),
    from: z.string().nullable().meta({ description: 'REPLAY: "earliest" or the ISO instant the inputs are read from.' }),
    status: z.enum(["PENDING", "RUNNING", "DONE", "FAILED"]),
    progress: z.string().nullable().meta({ description: "How far the worker got, in words." }),
    error: z.string().nullable(),
    savepointPath: z.string().nullable(),
    statementVersion: z.number().int().nullable().meta({ description: "STATEMENT: the approved statement version the new job runs." }),
    requestedAt: z.string(),
    finishedAt: z.string().nullable(),
  })
  .meta({ id: "DerivedJobCommand", description: "An owner's pause, resume or replay of a derived product's Flink job, or an approved new statement (STATEMENT), which the worker carries out." });
const jobCommandResult = z.object({
  command: jobCommand.nullable().meta({ description: "The intent the worker carries out; null while a reviewed replay waits for governance." }),
  changeRequest: z.object({ id: z.string(), status: z.string() }).nullable().meta({ description: "A CONFIDENTIAL or RESTRICTED product's replay: the DERIVED_REPLAY change request a governance reviewer other than the requester approves (POST /change-requests/{id}/approve)." }),
});

const page = (item: z.ZodType) => z.object({ items: z.array(item), total: z.number().int(), page: z.number().int(), pageSize: z.number().int(), pageCount: z.number().int() });

const planItem = z
  .looseObject({
    source: z.string().nullable(),
    contractId: z.string().nullable(),
    action: z.enum(["create", "update", "new-schema-version", "new-major-version", "no-change", "skipped", "error"]),
    productId: z.string().nullable(),
    topic: z.string().nullable(),
    targetTopic: z.string().nullable(),
    status: z.string().nullable(),
    changes: z.array(z.object({ field: z.string(), from: z.unknown(), to: z.unknown() })),
    schema: z.object({ change: z.string(), mode: z.string().nullable(), compatible: z.boolean().nullable(), issues: z.array(z.object({ path: z.string(), rule: z.string(), message: z.string() })) }),
    policy: z.object({ version: z.number().int(), results: z.array(ruleResult), blocked: z.boolean() }),
    errors: z.array(z.string()),
    notes: z.array(z.string()),
    skipped: z.string().optional().describe("Why a file was skipped: it belongs to a domain the caller (or the token) may not change."),
    applied: z.boolean().optional(),
    refusal: z.looseObject({ code: z.string(), message: z.string() }).optional(),
  })
  .meta({ id: "PlanItem" });

const token = z
  .looseObject({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["PERSONAL", "SERVICE"]),
    scopes: z.array(z.string()),
    prefix: z.string(),
    expiresAt: z.string(),
    lastUsedAt: z.string().nullable(),
    revokedAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: "ApiToken" });

const odcsContract = z
  .looseObject({ apiVersion: z.literal("v3.1.0"), kind: z.literal("DataContract"), id: z.string(), version: z.string(), status: z.string() })
  .meta({ id: "OdcsContract", description: "An Open Data Contract Standard v3.1.0 document (full schema: https://github.com/bitol-io/open-data-contract-standard)." });

const anyObject = (description: string) => z.looseObject({}).meta({ description });
const anyArray = (description: string) => z.array(z.looseObject({})).meta({ description });

/*
 * What the request guard (src/lib/request-guard.ts) refuses in every path
 * segment and query parameter before any handler runs: C0 control characters
 * and DEL, and more than MAX_PARAM_LENGTH characters. Stated on each parameter
 * so the document says what the API accepts (issue 30, finding 18).
 */
// C1 controls too (U+0080–U+009F): every parameter a catalog action reads is checked by its text rules, which refuse them.
// `(?![\s\S])` ends the text (`$` would also match before a final line break in Python's regex, which generators use).
const NO_CONTROL = "^[^\\u0000-\\u001f\\u007f-\\u009f]*(?![\\s\\S])";

/** A parameter's schema with the guard's bounds: strings at most MAX_PARAM_LENGTH characters, no control characters. */
export function guardedParam(schema: Record<string, unknown>): Record<string, unknown> {
  if (schema.type !== "string" || schema.enum) return schema;
  const maxLength = typeof schema.maxLength === "number" ? Math.min(schema.maxLength, MAX_PARAM_LENGTH) : MAX_PARAM_LENGTH;
  return { ...schema, maxLength, ...(schema.pattern === undefined ? { pattern: NO_CONTROL } : {}) };
}

/** Path parameters: ids (any text the guard lets through; unknown ones are 404), policy versions (positive whole numbers), Kafka node ids. */
const PARAM_SCHEMAS: Record<string, Record<string, unknown>> = { version: { type: "integer", minimum: 1 }, nodeId: { type: "integer", minimum: 0, maximum: 2147483647 } };
const idParam = (name = "id") => ({ name, in: "path", required: true, schema: PARAM_SCHEMAS[name] ?? guardedParam({ type: "string" }) });

// ---- routes ----------------------------------------------------------------------

export const ROUTES: RouteDoc[] = [
  { method: "get", path: "/me", tag: "Users", summary: "The caller: user, roles, memberships and permissions.", response: anyObject("The signed-in user or the token's user.") },
  {
    method: "get",
    path: "/products",
    tag: "Products",
    summary: "Search the catalog.",
    query: searchProductsInput,
    // Counts are exact up to 1,000; past that `total` is 1,000, `totalIsExact` false and `totalEstimate` the planner's estimate (two significant figures) or null — except on the last page (shorter than `pageSize`), whose position gives the exact total.
    response: page(product).extend({ totalIsExact: z.boolean(), totalEstimate: z.number().int().nullable(), sort: z.string(), match: z.enum(["all", "text", "fuzzy"]), suggestions: z.array(z.string()) }),
  },
  { method: "post", path: "/products", tag: "Products", summary: "Register a product (DRAFT). A derived product (computed by Flink from other products) is registered with the same fields plus `derived: {statement}` and without `schema`: the statement is planned first (as POST /derived/validate) and Flink's output schema becomes its schema version 1.", scope: "write:<domain>", body: registerProductInput, response: product, status: 201 },
  { method: "get", path: "/products/{id}", tag: "Products", summary: "A product: metadata, schema versions, subscriptions you may see, provisioning steps.", response: product },
  { method: "patch", path: "/products/{id}", tag: "Products", summary: "Edit a product (only metadata once approved).", scope: "write:<domain>", body: updateProductInput, response: product },
  { method: "post", path: "/products/{id}/submit", tag: "Products", summary: "Submit a draft for review.", scope: "write:<domain>", response: product },
  { method: "post", path: "/products/{id}/approve", tag: "Review", summary: "Approve a product in review (governance, four eyes); queues provisioning. An optional comment is kept as the decision's reason.", scope: "review", body: approvalCommentInput, response: product },
  { method: "post", path: "/products/{id}/reject", tag: "Review", summary: "Reject a product in review with a reason.", scope: "review", body: reasonInput, response: product },
  { method: "post", path: "/products/{id}/deprecate", tag: "Products", summary: "Deprecate an ACTIVE product with a sunset date.", scope: "write:<domain>", body: deprecateProductInput, response: product },
  { method: "get", path: "/products/{id}/observations", tag: "Observations", summary: "What the worker observed: offsets, throughput, tiered storage, consumer lag.", response: anyObject("Observations; figures the cluster cannot tell are null.") },
  { method: "get", path: "/products/{id}/contract", tag: "Contracts", summary: "The product version's ODCS v3 contract (YAML with Accept: application/yaml; `?schemaVersion=N`, `?download`).", response: odcsContract, alsoYaml: true },
  { method: "post", path: "/contracts/plan", tag: "Contracts", summary: "Plan contract files: create / update / new schema version / new major version / no change, with policy verdicts.", body: contractFilesInput, response: z.object({ items: z.array(planItem) }) },
  { method: "post", path: "/contracts", tag: "Contracts", summary: "Apply contract files through validation, policies, review and provisioning (idempotent).", scope: "write:<domain>", body: contractFilesInput, response: z.object({ items: z.array(planItem) }) },
  { method: "get", path: "/service-accounts", tag: "Service accounts", summary: "Your domains' consumer service accounts.", response: anyArray("Service accounts.") },
  { method: "post", path: "/service-accounts", tag: "Service accounts", summary: "Create a service account (a Kafka principal) for one of your domains.", scope: "write:<domain>", body: createServiceAccountInput, response: anyObject("The account."), status: 201 },
  {
    method: "get",
    path: "/service-accounts/{id}",
    tag: "Service accounts",
    summary: "One account of your domains with the client quota in force (its class, the policy's default where none was chosen); 404 for accounts of other domains.",
    response: z.looseObject({
      id: z.string(),
      name: z.string().meta({ description: "The Kafka user name (SCRAM)." }),
      domainId: z.string(),
      isProducer: z.boolean(),
      quota: z
        .object({
          class: z.string().meta({ description: "The quota class in force, e.g. standard." }),
          producerByteRate: z.number().int().meta({ description: "Kafka producer_byte_rate, bytes/s." }),
          consumerByteRate: z.number().int().meta({ description: "Kafka consumer_byte_rate, bytes/s." }),
          requestPercentage: z.number().meta({ description: "Kafka request_percentage." }),
        })
        .meta({ description: "The client quota the worker applies to the account's Kafka user on every environment." }),
    }),
  },
  { method: "post", path: "/service-accounts/{id}/credentials/reveal", tag: "Service accounts", summary: "Show the account's issued password once (a second call is 409 SECRET_NOT_AVAILABLE).", scope: "write:<domain>", response: z.object({ username: z.string(), password: z.string(), mechanism: z.literal("SCRAM-SHA-512"), issuedAt: z.string().nullable() }) },
  { method: "post", path: "/service-accounts/{id}/credentials/rotate", tag: "Service accounts", summary: "Queue new credentials for the account.", scope: "write:<domain>", response: anyObject("The queued task."), status: 202 },
  { method: "post", path: "/subscriptions", tag: "Subscriptions", summary: "Request read access for a service account.", scope: "write:<domain>", body: requestSubscriptionInput, response: anyObject("The subscription."), status: 201 },
  { method: "get", path: "/subscriptions/{id}", tag: "Subscriptions", summary: "A subscription with its grant steps and lag.", response: anyObject("The subscription.") },
  { method: "post", path: "/subscriptions/{id}/approve", tag: "Review", summary: "Approve a subscription request (owners or governance; RESTRICTED: governance).", scope: "write:<domain> or review", response: anyObject("The subscription.") },
  { method: "post", path: "/subscriptions/{id}/reject", tag: "Review", summary: "Reject a subscription request with a reason.", scope: "write:<domain> or review", body: reasonInput, response: anyObject("The subscription.") },
  { method: "post", path: "/subscriptions/{id}/revoke", tag: "Subscriptions", summary: "Revoke access with a reason.", scope: "write:<domain> or review", body: reasonInput, response: anyObject("The subscription.") },
  { method: "get", path: "/review-queue", tag: "Review", summary: "Pending products and subscription requests, with the policy verdict beside each.", response: anyObject("Products and subscriptions waiting.") },
  { method: "get", path: "/my-domains", tag: "Users", summary: "Your domains: products, service accounts, subscriptions both ways.", response: anyArray("Domains.") },
  { method: "get", path: "/audit-events", tag: "Audit", summary: "The audit log (governance, admins; owners for their products).", query: auditQueryInput, response: page(z.looseObject({ id: z.number(), action: z.string(), actorEmail: z.string(), entityType: z.string(), entityId: z.string(), data: z.looseObject({}), at: z.string() })) },
  { method: "get", path: "/platform", tag: "Platform", summary: "Task queue, worker instances and reconciles (admins).", scope: "admin", response: anyObject("Platform overview.") },
  { method: "get", path: "/costs", tag: "Costs", summary: "Showback and chargeback for a month: usage and cost per domain and product, the split charged to consuming domains, the total (admins: every domain and the platform total; others: their domains). An invalid month is 400 naming `month`.", query: costsQueryInput, response: costsResponse },
  { method: "get", path: "/products/{id}/cost", tag: "Costs", summary: "The product's cost this month and its trend (the product's domain, admins).", response: productCostResponse },
  { method: "post", path: "/provisioning-tasks/{id}/retry", tag: "Platform", summary: "Re-queue a FAILED provisioning task.", scope: "write:<domain> or review or admin", response: anyObject("The task.") },
  { method: "get", path: "/tokens", tag: "Tokens", summary: "Your API tokens and your domains' service tokens (never a secret).", response: z.object({ items: z.array(token), grantableScopes: z.array(z.string()), ownedDomains: z.array(z.object({ id: z.string(), slug: z.string() })) }) },
  { method: "post", path: "/tokens", tag: "Tokens", summary: "Create an API token (signed-in session only); the answer carries `token` once.", body: createApiTokenInput, response: token.extend({ token: z.string().meta({ description: "The secret: shown once, stored only as a SHA-256 hash." }) }), status: 201 },
  { method: "post", path: "/tokens/{id}/revoke", tag: "Tokens", summary: "Revoke a token at once.", response: token },
  { method: "get", path: "/policies/current", tag: "Policies", summary: "The policy in force: YAML source and parsed rules.", response: z.looseObject({ version: z.number().int(), source: z.string(), document: z.looseObject({}) }) },
  { method: "get", path: "/policies", tag: "Policies", summary: "Policy versions and the products in violation of the policy in force (governance, admins).", response: anyObject("Overview.") },
  { method: "post", path: "/policies", tag: "Policies", summary: "Publish a new policy version (admins); answers with the products now in violation.", scope: "admin", body: updatePolicyInput, response: z.object({ version: z.number().int(), violations: anyArray("Products in violation.") }), status: 201 },
  { method: "get", path: "/policies/versions/{version}", tag: "Policies", summary: "One policy version's YAML and the one before it.", response: anyObject("The version.") },
  { method: "post", path: "/products/{id}/retire", tag: "Products", summary: "Retire a DEPRECATED product: grants removed, topic deleted or kept per policy.", scope: "write:<domain>", body: retireProductInput, response: product },
  { method: "get", path: "/products/{id}/retirement", tag: "Products", summary: "What retiring the product would do and who still reads it.", response: anyObject("Retirement preview.") },
  { method: "get", path: "/notifications", tag: "Notifications", summary: "Your in-app notifications.", query: listNotificationsInput, response: anyObject("Notifications and unread count.") },
  { method: "post", path: "/notifications/read", tag: "Notifications", summary: "Mark notifications read.", body: markNotificationsReadInput, response: anyObject("How many were marked.") },
  { method: "get", path: "/domains/{id}/webhooks", tag: "Webhooks", summary: "A domain's webhooks (owners).", response: anyArray("Webhooks.") },
  { method: "post", path: "/domains/{id}/webhooks", tag: "Webhooks", summary: "Add a webhook to a domain; its signing secret is in this answer once.", scope: "write:<domain>", body: createWebhookInput, response: anyObject("The webhook and its secret."), status: 201 },
  { method: "patch", path: "/webhooks/{id}", tag: "Webhooks", summary: "Change a webhook.", scope: "write:<domain>", body: updateWebhookInput, response: anyObject("The webhook.") },
  { method: "delete", path: "/webhooks/{id}", tag: "Webhooks", summary: "Delete a webhook.", scope: "write:<domain>", response: anyObject("The deleted webhook.") },
  { method: "post", path: "/webhooks/{id}/test", tag: "Webhooks", summary: "Send a signed test delivery.", scope: "write:<domain>", response: anyObject("The queued delivery."), status: 202 },
  { method: "get", path: "/webhooks/{id}/deliveries", tag: "Webhooks", summary: "A webhook's recent deliveries.", response: anyArray("Deliveries.") },
  { method: "delete", path: "/domains/{id}/members/{userId}", tag: "Admin", summary: "Remove a member from a domain (platform admins, and the domain's owners for their own domain); the last owner of an active domain stays.", scope: "admin or write:<domain>", response: anyObject("The result.") },
  { method: "delete", path: "/sso/group-mappings/{id}", tag: "Admin", summary: "Delete an SSO group mapping (admins).", scope: "admin", response: anyObject("The result.") },
  {
    method: "get",
    path: "/audit-events/export",
    tag: "Audit",
    summary: "Export the filtered audit log as a download, newest first (governance, admins): CSV by default, JSON with `format=json`.",
    query: auditExportInput,
    produces: {
      "text/csv": { schema: { type: "string", description: "format=csv (the default): a header row, then one event per row; cells a spreadsheet would run as formulas start with '." } },
      "application/json": { schema: { type: "array", items: { type: "object" }, description: "format=json: the events as an array." } },
    },
  },
  { method: "get", path: "/cluster/topics", tag: "Cluster", summary: "Every topic on the cluster, managed or not, with configs, offsets and ACLs.", query: clusterTopicsInput, response: anyObject("The result.") },
  { method: "get", path: "/domains", tag: "Admin", summary: "Domains.", response: anyArray("Domains.") },
  { method: "get", path: "/domains/{id}/members", tag: "Admin", summary: "A domain's members (platform admins, and the domain's owners).", response: anyObject("The result.") },
  {
    method: "post",
    path: "/derived/validate",
    tag: "Products",
    summary: "Plan a derived product's Flink SQL statement for a domain through Flink's SQL Gateway: 200 with the output schema Flink derives (JSON Schema), the inputs and Flink's plan; 403 naming an input the domain holds no approved subscription to; 422 `error.message` (Flink's), `error.line`, `error.column` for a statement that does not plan; 503 without FLINK_SQL_GATEWAY_URL.",
    scope: "write:<domain>",
    body: derivedStatementInput,
    response: z.object({ outputSchema: z.record(z.string(), z.unknown()), inputs: z.array(z.object({ productId: z.string(), topicName: z.string() })), plan: z.string(), minimumClassification: z.enum(["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"]) }),
  },
    { method: "get", path: "/lineage", tag: "Lineage", summary: "The lineage graph: granted and observed edges.", query: lineageQueryInput, response: anyObject("The result.") },
  { method: "get", path: "/products/{id}/drift", tag: "Products", summary: "Differences between the catalog and the cluster for a product.", response: anyObject("The result.") },
  { method: "get", path: "/sso/group-mappings", tag: "Admin", summary: "SSO group → role mappings (admins).", response: anyArray("Mappings.") },
  { method: "get", path: "/users", tag: "Admin", summary: "Users and their global roles (admins).", query: listUsersInput, response: anyObject("The result.") },
  { method: "patch", path: "/domains/{id}", tag: "Admin", summary: "Change a domain (admins).", scope: "admin", body: renameDomainInput, response: anyObject("The result.") },
  { method: "patch", path: "/domains/{id}/members/{userId}", tag: "Admin", summary: "Change a member's role in a domain (platform admins, and the domain's owners for their own domain); the last owner of an active domain stays.", scope: "admin or write:<domain>", body: changeMemberRoleInput, response: anyObject("The result.") },
  { method: "patch", path: "/users/{id}", tag: "Admin", summary: "Change a user's global role (admins).", scope: "admin", body: setGlobalRoleInput, response: anyObject("The result.") },
  { method: "post", path: "/change-requests/{id}/approve", tag: "Review", summary: "Approve a reviewed change to a live product (governance, four eyes).", scope: "review", response: anyObject("The result.") },
  { method: "post", path: "/change-requests/{id}/reject", tag: "Review", summary: "Reject a reviewed change with a reason.", scope: "review", body: reasonInput, response: anyObject("The result.") },
  {
    method: "get",
    path: "/change-requests/{id}/rules-impact",
    tag: "Review",
    summary:
      "What a pending change of data-quality rules would do (governance reviewers and the owners of the product's domain): the rules in force and the proposed ones evaluated on the newest records of the product's topic (at most 200, read like the message browser's) — counts only, no record: per rule passed / failed / errored, the records failing any rule, and those a producer's serializer would keep off the topic (a failed WRITE rule with onFailure ERROR or DLQ). 409 for another kind of change or one already decided. The read is audited.",
    response: anyObject("{ changeRequestId, productId, topic, sampled, evaluated, undecodable, tombstones, current, proposed, note }; current and proposed: { rules [{ name, mode, onFailure, passed, failed, errored }], failingRecords, keptOffTopic }."),
  },
  { method: "post", path: "/cluster/topics/claim", tag: "Cluster", summary: "Claim an unmanaged topic as a data product.", scope: "write:<domain>", body: claimTopicInput, response: anyObject("The result.") , status: 201 },
  { method: "post", path: "/domains", tag: "Admin", summary: "Create a domain (admins).", scope: "admin", body: createDomainInput, response: anyObject("The result.") , status: 201 },
  { method: "post", path: "/domains/{id}/archive", tag: "Admin", summary: "Archive a domain (admins).", scope: "admin", response: anyObject("The result.") },
  { method: "post", path: "/domains/{id}/members", tag: "Admin", summary: "Add a person to a domain with a role (platform admins, and the domain's owners for their own domain). Owners add people who already have an account; only platform admins may name an e-mail without one, which creates an account without a password (single sign-on) — otherwise 400 on `email`.", scope: "admin or write:<domain>", body: addMemberInput, response: anyObject("The membership.") , status: 201 },
  { method: "post", path: "/domains/{id}/restore", tag: "Admin", summary: "Restore an archived domain (admins).", scope: "admin", response: anyObject("The result.") },
  { method: "post", path: "/products/{id}/claim-acls", tag: "Products", summary: "Decide each ACL found on a claimed topic (governance reviewers other than the claimant): ADOPT as a subscription of a named service account, keep as a documented EXCEPTION with a reason, or REMOVE. Every ACL needs a decision before the claim is approved.", scope: "review", body: claimAclsInput, response: anyObject("The result.") },
  {
    method: "post",
    path: "/products/{id}/key-erasure",
    tag: "Products",
    summary:
      "An owner's erasure request (crypto-shredding without retiring): ask governance to destroy the product's field-level encryption keys (DEKs), e.g. for an erasure obligation. Irreversible: once a reviewer other than the requester approves it (POST /change-requests/{id}/approve, kind KEY_ERASURE), nobody can decrypt the encrypted PII fields of the records written so far, in the log or any remote tier; the next encrypting write gets a new key. 201 with the change request. 400 on `reason` (required), `irreversible` (must be true) or another field, or when the product has no keys; 403 not an owner of the product's domain; 404 unknown product; 409 PRODUCT_RETIRED, CHANGE_PENDING (one waits already).",
    scope: "write:<domain>",
    body: keyErasureInput,
    response: anyObject("The change request: { id, kind: KEY_ERASURE, payload: { keys, subjects }, status, reason }."),
    status: 201,
  },
  { method: "post", path: "/products/{id}/partitions", tag: "Products", summary: "Request more partitions for a live product (a reviewed change).", scope: "write:<domain>", body: partitionIncreaseInput, response: anyObject("The result.") , status: 201 },
  { method: "post", path: "/sso/group-mappings", tag: "Admin", summary: "Add an SSO group mapping (admins).", scope: "admin", body: ssoGroupMappingInput, response: anyObject("The result.") , status: 201 },
  { method: "get", path: "/cluster/topics/schema-inference", tag: "Cluster", summary: "The latest schema inferred from sample records of an unmanaged topic (?topic=); null before the first request. Platform admins, and the owners of an open claim on the topic that an admin approved for sampling.", query: schemaInferenceInput, response: anyObject("The inference: status, inferred, format, definition, explanation.").nullable() },
  { method: "post", path: "/cluster/topics/schema-inference", tag: "Cluster", summary: "Ask the worker to infer an unmanaged topic's schema from sample records (JSON → JSON Schema 2020-12; registry-framed values → that schema). Platform admins, and the owners of an open claim on the topic that an admin approved for sampling (records may hold data no grant covers).", scope: "admin or write:<domain>", body: schemaInferenceInput, response: anyObject("The pending inference."), status: 202 },
  { method: "post", path: "/cluster/topics/sampling-approval", tag: "Cluster", summary: "Allow the owners of the open claim on a topic (draft, in review or rejected) to have the worker sample it for schema inference (platform admins).", scope: "admin", body: schemaInferenceInput, response: z.object({ topic: z.string(), productId: z.string(), samplingApprovedAt: z.string() }) },
  { method: "get", path: "/reserved-principals", tag: "Admin", summary: "Reserved Kafka principals (platform, worker-recorded, admin-added) with the accounts under each (platform admins).", scope: "admin", response: anyObject("items, renamedAccounts.") },
  { method: "post", path: "/reserved-principals", tag: "Admin", summary: "Reserve a Kafka user name or prefix so no service account may take it (platform admins).", scope: "admin", body: addReservedPrincipalInput, response: anyObject("The reservation and the accounts under it."), status: 201 },
  { method: "delete", path: "/reserved-principals/{id}", tag: "Admin", summary: "Remove an admin-added reservation (platform and worker entries: 409 RESERVED_BY_PLATFORM).", scope: "admin", response: anyObject("The removed reservation.") },
  { method: "get", path: "/recertification", tag: "Subscriptions", summary: "Granted subscriptions to recertify (owners, governance): due dates, overdue, unused first.", response: anyObject("The result.") },
  { method: "post", path: "/subscriptions/{id}/recertify", tag: "Subscriptions", summary: "Recertify a subscription: keep or revoke, with a reason.", scope: "write:<domain>", body: recertifyInput, response: anyObject("The result.") },
  { method: "put", path: "/subscriptions/{id}/expiry", tag: "Subscriptions", summary: "Set or clear a subscription's expiry; on expiry it is revoked.", scope: "write:<domain>", body: subscriptionExpiryInput, response: anyObject("The result.") },
  { method: "put", path: "/products/{id}/inputs", tag: "Lineage", summary: "Declare the products a product is derived from (no cycles).", scope: "write:<domain>", body: productInputsInput, response: anyObject("The result.") },
  { method: "get", path: "/subscriptions/{id}/objectives", tag: "Subscriptions", summary: "The subscriber's lag objectives, each consumer group's lag in records and seconds against them, lag history and alert history.", response: anyObject("Objectives, groups, history and alerts.") },
  { method: "put", path: "/subscriptions/{id}/objectives", tag: "Subscriptions", summary: "Set the subscriber's lag objectives (max lag in records and in seconds; null: none). The worker alerts on them with hysteresis.", scope: "write:<domain>", body: subscriptionObjectiveInput, response: anyObject("The objective, or null when both are cleared.") },
  { method: "post", path: "/alerts/{id}/acknowledge", tag: "Subscriptions", summary: "Acknowledge a firing alert (the owners it is about: a lag alert's subscribing domain, a freshness alert's product domain); who and when are shown on it.", scope: "write:<domain>", response: anyObject("The alert.") },
  { method: "post", path: "/alerts/{id}/silence", tag: "Subscriptions", summary: "Silence a firing alert's rule for 1 h, 24 h, 7 days or until a date (at most 90 days): it does not notify meanwhile and notifies again when the silence ends if it still fires.", scope: "write:<domain>", body: silenceAlertInput, response: anyObject("alertId, until, silencedById.") },
  { method: "delete", path: "/alerts/{id}/silence", tag: "Subscriptions", summary: "End an alert's silence early.", scope: "write:<domain>", response: anyObject("alertId.") },
  {
    method: "get",
    path: "/products/{id}/job",
    tag: "Products",
    summary:
      "A derived product's Flink job as the worker last observed it: `state` (RUNNING, RESTARTING, FAILED, …; NOT_DEPLOYED before the worker started it; STOPPED once the worker stopped it because an input's subscription was revoked or an input or the product retired), `jobId`, `startedAt`, `recordsInPerSecond`, `recordsOutPerSecond`, `watermarkLagMs`, `lastCheckpointAt`, `restarts`, `error`, `observedAt`, `stoppedAt`, `stopReason`; `PAUSED` with `pausedAt` and `savepointPath` while its owners paused it (no rates nor watermark lag then: nothing runs; `lastCheckpointAt` and `restarts` are the paused job's; after a resume or replay they are null until the worker reads the new job); `command`: the latest pause, resume or replay and the worker's `progress`; `replayAwaitingReview`: a replay waiting for governance; `statementVersion` (approved) and `jobStatementVersion` (the one the job runs), `statementVersionOnResume` (a paused job whose new statement was approved while paused: the version its resume runs), `statementChangeAwaitingReview`, and after a statement change `restoredFromSavepoint` with `restoreNote` (Flink's reason when the new statement could not restore the old job's state); after Flink lost the job (a restarted session cluster answers 404 for it) the worker redeploys it by itself, and `restoredFromSavepoint` with `restoreNote` say whether it restored the last completed checkpoint (“Redeployed after Flink lost job …, restored from checkpoint …”) or read on from the group's committed offsets. As visible as the product; 404 for a product that is not derived.",
    response: anyObject("The job."),
  },
  {
    method: "post",
    path: "/products/{id}/job/pause",
    tag: "Products",
    summary:
      "Pause a derived product's running Flink job (owners of its domain): the worker stops it with a savepoint (Flink keeps its open windows, the inputs' offsets and the sink's transactions) and the job reads `PAUSED` with `savepointPath`. 202 with the `command` and its `progress`; 403 not an owner; 404 not derived; 409 JOB_NOT_RUNNING (paused already, stopped, not deployed), JOB_COMMAND_OPEN (another pause, resume or replay is under way), PRODUCT_NOT_LIVE.",
    scope: "write:<domain>",
    response: jobCommandResult,
    status: 202,
  },
  {
    method: "post",
    path: "/products/{id}/job/resume",
    tag: "Products",
    summary:
      "Resume a paused derived product's job from its savepoint (owners of its domain): the same statement, its state restored, so nothing is recomputed or skipped — or, when a new statement was approved while it was paused (`statementVersionOnResume`), that statement, restored from the savepoint where Flink can map the state, else without state from the committed input offsets (`restoredFromSavepoint: false`, `restoreNote`); one that starts neither way, or no longer plans, is rolled back (the old statement resumes from the savepoint; the command FAILED with the reason). 202 with the `command`; 409 JOB_NOT_PAUSED, JOB_COMMAND_OPEN, PRODUCT_NOT_LIVE; the worker refuses (command FAILED with the reason) when the domain lost access to an input meanwhile.",
    scope: "write:<domain>",
    response: jobCommandResult,
    status: 202,
  },
  {
    method: "post",
    path: "/products/{id}/job/replay",
    tag: "Products",
    summary:
      'Replay a derived product from an earlier point (owners of its domain): the worker cancels the job (no savepoint) and starts the statement again reading every input from `"earliest"` (its earliest offset, tiered storage included) or from the first record at or after an ISO-8601 instant, under a new consumer group `<job account>.replay-<id>`. The output topic is append-only: the recomputed results are appended after the earlier ones and consumers see each window again. A CONFIDENTIAL or RESTRICTED product\'s replay needs a `reason` and becomes a DERIVED_REPLAY change request that a governance reviewer other than the requester approves first (four eyes). 400 on `from` (not "earliest" or an instant with its zone, in the future, or before what an input retains), on `reason`; 409 JOB_NOT_RUNNING, JOB_COMMAND_OPEN, CHANGE_PENDING, PRODUCT_NOT_LIVE.',
    scope: "write:<domain>",
    body: derivedReplayInput,
    response: jobCommandResult,
    status: 202,
  },
  {
    method: "put",
    path: "/products/{id}/derived",
    tag: "Products",
    summary:
      "Propose a new statement for an ACTIVE derived product's running or paused Flink job (owners of its domain, tokens with write:<domain>). Planned by Flink as POST /derived/validate; its output schema is checked under the product's compatibility mode against the approved versions. Compatible (or unchanged) → 202 with the DERIVED_STATEMENT `changeRequest` a governance reviewer other than the requester approves (POST /change-requests/{id}/approve), `jobPaused` and `onApproval` (what approval does, in words): the statement version and, when the output changed, the next schema version are recorded; a running job is then stopped by the worker with a savepoint and the new statement started restoring it (else from the inputs' committed offsets, without state: `restoredFromSavepoint: false` on the job); a paused job stays paused (`statementVersionOnResume` on the job) and POST /job/resume runs the new statement by the same rule (the old one resumes from the savepoint if the new one starts neither way). 400 on `statement`, `reason` (both required) or another field; 403 not an owner, NO_SUBSCRIPTION naming an input the domain holds no approved subscription to; 404 not derived; 409 STATEMENT_UNCHANGED, JOB_NOT_RUNNING (stopped, not deployed, paused without a savepoint), JOB_COMMAND_OPEN, CHANGE_PENDING, PRODUCT_NOT_ACTIVE, SCHEMA_VERSION_PENDING; 422 STATEMENT_DOES_NOT_PLAN (Flink's message, line, column), INCOMPATIBLE_OUTPUT_SCHEMA (the fields, and the new major version needed), CLASSIFICATION_TOO_LOW; 503 without FLINK_SQL_GATEWAY_URL.",
    scope: "write:<domain>",
    body: derivedStatementChangeInput,
    response: z.object({
      changeRequest: z.object({ id: z.string(), status: z.string() }),
      statementVersion: z.number().int(),
      schemaVersion: z.number().int(),
      schemaChanged: z.boolean(),
      outputSchema: z.record(z.string(), z.unknown()),
      compatibility: z.object({ mode: z.string(), checkedVersions: z.array(z.number().int()) }),
      fieldChanges: z.array(z.record(z.string(), z.unknown())),
      inputs: z.array(z.object({ productId: z.string(), topicName: z.string() })),
      plan: z.string(),
      jobPaused: z.boolean(),
      onApproval: z.string(),
    }),
    status: 202,
  },
  { method: "get", path: "/products/{id}/slo", tag: "Products", summary: "The product's freshness against its SLA (MET, AT_RISK, BREACHED, NO_DATA) with history, and its alerts (owners and governance: all; subscribers: freshness and their own).", response: anyObject("Freshness, history and alerts.") },
  // Records: message browser, latest-state view, governed replay, PII on subscriptions.
  { method: "get", path: "/products/{id}/dlq", tag: "Records", readsKafka: true, summary: "The product's dead-letter topic <topic>.dlq (issue 29), for its owners only: records held, records added over the last hour, the history per minute, and the newest records with the rule each failed (its __rule.name header), decoded like the message browser's.", response: anyObject("topic, enabled, count, addedLastHour, observedAt, history [{bucket, records, endOffset}], records [{partition, offset, timestamp, rule, mode, error, key, value}], note.") },
  { method: "get", path: "/products/{id}/dlq/redrive", tag: "Records", summary: "The product's redrive requests (issue 29) with their state (REQUESTED, APPROVED, RUNNING, DONE, FAILED, REJECTED) and the worker's progress, for its owners and governance; canDecide says whether you may approve a waiting one.", response: anyObject("{ redrives: [{ id, status, selection, previewed, matched, sent, alreadyRedriven, skipped, skippedReasons, error, requestedBy, decidedBy, canDecide, … }] }.") },
  { method: "post", path: "/products/{id}/dlq/redrive", tag: "Records", summary: "Redrive dead letters back to the product topic (owners): a selection of records, a filter (rule, partition, offset or time range) or all, bounded by the dead-letter topic's end offsets now. Each dead letter is redriven at most once. APPROVED at once, or REQUESTED until another owner or governance approves when the product is CONFIDENTIAL or above.", scope: "write:<domain>", body: requestRedriveInput, response: anyObject("{ request, fourEyes }."), status: 201 },
  { method: "post", path: "/products/{id}/dlq/redrive/preview", tag: "Records", summary: "What a redrive of the selection would send now (owners): count, matched, alreadyRedriven (excluded), fourEyes, and the first records masked like the DLQ panel. Nothing is recorded but the read (audited).", body: redrivePreviewInput, response: anyObject("{ dlqTopic, topic, selection, matched, alreadyRedriven, count, fourEyes, records, upTo }.") },
  { method: "post", path: "/products/{id}/dlq/redrive/{requestId}/decision", tag: "Records", summary: "Approve or reject a waiting redrive (another owner of the domain or governance; never its requester). A rejection needs a reason.", scope: "write:<domain>", body: decideRedriveInput, response: anyObject("The decided request.") },
  { method: "get", path: "/products/{id}/messages", tag: "Records", summary: "A page of the product's records, decoded and masked on the server (owning domain and active subscribers).", query: browseMessagesInput, response: anyObject("Records with next/previous cursors, partitions, truncated, piiVisible, keyMasked, headersHidden and withheld (records left out: their values do not match the schema).") },
  { method: "get", path: "/products/{id}/state", tag: "Records", summary: "The latest-state view of a compacted product: status and lag; with keys=1 a page of entries.", query: stateQueryInput, response: anyObject("{ view, partitions, lag } or { entries, nextAfter }.") },
  { method: "post", path: "/products/{id}/state", tag: "Records", summary: "Rebuild the latest-state view from offset 0 (owners).", scope: "write:<domain>", response: anyObject("The view being rebuilt."), status: 202 },
  { method: "get", path: "/products/{id}/state/{key}", tag: "Records", summary: "The latest value of one key (?encoding=hex for a hex key), with its partition, offset and timestamp.", query: z.object({ encoding: stateKeyInput.shape.encoding }), response: anyObject("The entry.") },
  { method: "post", path: "/subscriptions/{id}/replay", tag: "Subscriptions", summary: "Governed replay of one of the subscription's consumer groups; dryRun previews per partition, otherwise the worker applies it (409 GROUP_ACTIVE while the group has members).", scope: "write:<domain>", body: replayInput, response: anyObject("The preview, or the recorded replay."), status: 202 },
  { method: "get", path: "/subscriptions/{id}/replays", tag: "Subscriptions", summary: "The subscription's replays, newest first, with status and what the worker committed.", response: anyArray("Replays.") },
  { method: "post", path: "/subscriptions/{id}/approve-pii", tag: "Review", summary: "Governance grants the subscription's stated PII need (four eyes).", scope: "review", response: anyObject("The subscription.") },
  // Client quota classes (issue 33): chosen per product and per subscription; a class larger than the policy's default waits for governance.
  { method: "get", path: "/products/{id}/quota", tag: "Products", summary: "The client quota in force for the product's producer account (class, rates), the class chosen or waiting for governance, and the account's bytes per second per minute against producer_byte_rate (members of the domain, governance, admins).", response: anyObject("account, inForce, chosen, requested, classes, limitBytesPerSecond, points, latestBytesPerSecond, peakBytesPerSecond, peakPercentOfQuota.") },
  { method: "get", path: "/subscriptions/{id}/quota", tag: "Subscriptions", summary: "The client quota in force for the subscription's account (class, rates), the class chosen or waiting for governance, and the account's bytes read per second per minute against consumer_byte_rate.", response: anyObject("account, inForce, chosen, requested, classes, limitBytesPerSecond, points, latestBytesPerSecond, peakBytesPerSecond, peakPercentOfQuota.") },
  { method: "put", path: "/products/{id}/quota-class", tag: "Products", summary: "Choose the quota class of the product's producer account (owners): at most the default's rates takes effect at once (quotaClass); a larger class needs a reason and waits for governance (quotaClassRequested).", scope: "write:<domain>", body: setProductQuotaClassInput, response: anyObject("The product with quotaClass, quotaClassRequested, quotaClassReason.") },
  { method: "post", path: "/products/{id}/quota-class/approve", tag: "Review", summary: "Governance grants the product's waiting quota class (four eyes: not the person who asked); the worker applies it.", scope: "review", response: anyObject("The product.") },
  { method: "post", path: "/products/{id}/quota-class/reject", tag: "Review", summary: "Governance refuses the product's waiting quota class with a reason; the class in force stays.", scope: "review", body: rejectQuotaClassInput, response: anyObject("The product.") },
  { method: "post", path: "/subscriptions/{id}/quota-class/approve", tag: "Review", summary: "Governance grants the subscription's waiting quota class (four eyes: not the person who asked); the worker applies it.", scope: "review", response: anyObject("The subscription.") },
  { method: "post", path: "/subscriptions/{id}/quota-class/reject", tag: "Review", summary: "Governance refuses the subscription's waiting quota class with a reason; the class in force stays.", scope: "review", body: rejectQuotaClassInput, response: anyObject("The subscription.") },
  // Schema governance: versions, reviews, major versions.
  { method: "get", path: "/products/{id}/schema-versions", tag: "Schemas", summary: "Every schema version of a product: status, proposer, decider, registry id, fingerprint (proposals and rejections for its owners and governance).", response: anyObject("The versions and the product's major-version chain.") },
  { method: "post", path: "/products/{id}/schema-versions", tag: "Schemas", summary: "Propose the next schema version of an ACTIVE or DEPRECATED product; 409 INCOMPATIBLE_SCHEMA lists every incompatibility and offers the next major version.", scope: "write:<domain>", body: proposeSchemaVersionInput, response: anyObject("The PENDING version."), status: 201 },
  { method: "post", path: "/products/{id}/schema-versions/check", tag: "Schemas", summary: "What proposing this schema would do (invalid, identical, compatible, or refused with reasons); stores nothing.", body: proposeSchemaVersionInput, response: anyObject("The verdict under the product's mode and each stricter one, the field changes and the new-major offer.") },
  { method: "get", path: "/schema-versions/{id}", tag: "Review", summary: "A schema version's review: field diff, verdict per mode, the subscriptions a FORWARD-incompatible change would break.", response: anyObject("The review.") },
  { method: "post", path: "/schema-versions/{id}/approve", tag: "Review", summary: "Approve a proposed schema version (governance, not its proposer), naming the fingerprint of the version opened.", scope: "review", body: approveSchemaVersionInput, response: anyObject("The approved version with its registry id.") },
  { method: "post", path: "/schema-versions/{id}/reject", tag: "Review", summary: "Reject a proposed schema version with a reason.", scope: "review", body: reasonInput, response: anyObject("The rejected version.") },
  { method: "post", path: "/products/{id}/major-version", tag: "Schemas", summary: "Publish `<domain>.<product>.v<N+1>` with a new schema: a linked product in review; this one is deprecated at the chosen sunset.", scope: "write:<domain>", body: publishMajorVersionInput, response: product, status: 201 },
  { method: "get", path: "/products/{id}/review", tag: "Review", summary: "A product in review, whole: schema and PII, topic configs, classification; for a new major version the change from its predecessor and who reads it.", response: anyObject("The review.") },
  { method: "get", path: "/subscriptions/{id}/successor", tag: "Subscriptions", summary: "For a subscription to a deprecated product: the newer major version and whether the same access was requested on it (null otherwise).", response: anyObject("The notice, or null.") },
  { method: "post", path: "/subscriptions/{id}/successor", tag: "Subscriptions", summary: "Request the same access (service account and purpose) on the product's newer major version.", scope: "write:<domain>", response: anyObject("The new subscription request."), status: 201 },
  { method: "post", path: "/products/{id}/compatibility-mode", tag: "Schemas", summary: "Request a change of the product's compatibility mode (NONE included) with a reason; it applies when governance approves it.", scope: "write:<domain>", body: compatibilityModeChangeInput, response: anyObject("The change request."), status: 201 },
  { method: "get", path: "/products/{id}/quality", tag: "Schemas", summary: "The product's observed quality (issue 29), for everyone who may see the product: the share of sampled records that pass its data-quality rules, overall and per rule, over the window (1h, 24h or 7d; default 24h), with a series. measured is false and every share null when the worker has sampled nothing in the window — there is no score then.", query: productQualityInput, response: anyObject("{ productId, window, from, to, measured, overall: {records, passed, failed, errored, share}, rules: [{name, expression, onFailure, records, passed, failed, errored, share}], series: [{at, records, share}], lastSampledAt }.") },
  { method: "get", path: "/products/{id}/rules", tag: "Schemas", summary: "The product's data-quality rules in force (CEL / CEL_FIELD, mode, onFailure), its dead-letter topic and whether the fields classified PII are encrypted (encryptPii); the Schema Registry API serves them as each version's ruleSet (with an ENCRYPT rule for the tag PII when encryptPii).", response: anyObject("{ productId, rules, dlqTopic, encryptPii }.") },
  { method: "put", path: "/products/{id}/rules", tag: "Schemas", summary: "Set the product's data-quality rules (the whole list, in order): CEL that does not compile, names a field the schema lacks or exceeds the policy's limits is refused with where. A draft takes them at once (200); a live product's change waits for governance with its reason (202). encryptPii (optional) turns field-level encryption of the PII fields on or off in the same reviewed change; refused (400) when the schema classifies no field as PII.", scope: "write:<domain>", body: setQualityRulesInput, response: anyObject("{ applied, rules, encryptPii, changeRequestId }.") },
  { method: "post", path: "/products/{id}/rules/test", tag: "Schemas", summary: "Test edited (unsaved) data-quality rules against the newest records of the product's topic (at most 200, read like the message browser's), for the owners of its domain: per rule passed / failed / errored (a rule fails a record only when false; an expression that errs is counted apart), and the failing records decoded and masked as the message browser shows them to the caller. Rules the catalog would refuse get a 400 naming the rule's field; a draft has no records (409). Nothing is saved; the read is audited.", scope: "write:<domain>", body: testQualityRulesInput, response: anyObject("{ productId, topic, sampled, evaluated, undecodable, tombstones, rules [{ name, passed, failed, errored }], failing [{ partition, offset, timestamp, key, value, failed }], failingRecords, note }.") },
  { method: "get", path: "/my-domains/superseded", tag: "Subscriptions", summary: "Your domains' subscriptions to deprecated products, with the newer major version to move to.", response: anyArray("Notices.") },
  // Environments and promotion: clusters named as environments, promotion with its own review.
  { method: "get", path: "/clusters", tag: "Environments", summary: "Every cluster named as an environment, the worker's own (KAFKA_BROKERS, primary) first; passwords are never returned, only hasPassword (admins). Each lists the brokers the worker has seen in its metadata (downSince set while one is missing) and its newest broker outages (brokerOutages, endedAt null while one lasts, forgottenAt set when an admin forgot the broker; each broker's forgetRequestedAt while such a request waits for the worker).", response: anyArray("Clusters.") },
  { method: "post", path: "/clusters", tag: "Environments", summary: "Register a Kafka cluster as an environment (admins); the admin password is sealed under KAPPA_SECRETS_KEY and never shown again.", scope: "admin", body: registerClusterInput, response: anyObject("The cluster (without its password)."), status: 201 },
  { method: "patch", path: "/clusters/{id}", tag: "Environments", summary: "Change a registered cluster's connection or bounds (admins); a given adminPassword replaces the stored one.", scope: "admin", body: updateClusterInput, response: anyObject("The cluster (without its password).") },
  { method: "post", path: "/clusters/{id}/brokers/{nodeId}/forget", tag: "Environments", summary: "Ask to forget a broker that is down for good (admins; a decommissioned node would otherwise be listed as down for ever). The worker carries it out at its next look at the cluster if the broker is still down — its record goes and its open outage ends, marked forgotten (forgottenAt) — or drops it if the broker is back. 409 BROKER_UP for a broker the worker sees up, FORGET_PENDING while a request waits. Audited with the reason.", scope: "admin", body: reasonInput, response: anyObject("{ clusterId, environment, nodeId, address, status: PENDING, requestedAt }."), status: 202 },
  { method: "get", path: "/products/{id}/environments", tag: "Environments", summary: "The product's state in each environment side by side, and the environments the caller may promote it to.", response: anyObject("{ productId, environments, promotableTo }.") },
  { method: "post", path: "/products/{id}/promote", tag: "Environments", summary: "Promote an ACTIVE product to another environment (domain owners): copies its approved definition and schema versions; checked against the environment's bounds; waits for its own review.", scope: "write:<domain>", body: promoteProductInput, response: anyObject("The promotion (IN_REVIEW)."), status: 201 },
  { method: "post", path: "/promotions/{id}/approve", tag: "Review", summary: "Approve a promotion (governance, not its requester); evaluated with the policy in force and the environment's bounds; the worker then provisions it on that cluster.", scope: "review", body: approvalCommentInput, response: anyObject("The promotion (APPROVED).") },
  { method: "post", path: "/promotions/{id}/reject", tag: "Review", summary: "Reject a promotion with a reason.", scope: "review", body: reasonInput, response: anyObject("The promotion (REJECTED).") },
  { method: "get", path: "/openapi.json", tag: "Meta", summary: "This document.", response: anyObject("OpenAPI 3.1."), public: true },
];

/** Named schemas (`.meta({ id })`) collected while building: they become components/schemas. */
let components: Record<string, unknown> = {};

/** A request schema as the document states it (components inlined as `$ref`s are kept): for the drift test. */
export function requestSchemaOf(schema: z.ZodType): Record<string, unknown> {
  return schemaOf(schema, "input");
}

function schemaOf(schema: z.ZodType, io: "input" | "output"): Record<string, unknown> {
  const json = z.toJSONSchema(schema, {
    io,
    target: "draft-2020-12",
    unrepresentable: "any",
    // Dates travel as ISO 8601 strings.
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === "date") Object.assign(ctx.jsonSchema, { type: "string", format: "date-time" });
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  // zod puts named schemas in a local $defs; in OpenAPI they live in components.
  const defs = (json.$defs ?? {}) as Record<string, unknown>;
  delete json.$defs;
  const relink = (value: unknown): Record<string, unknown> => JSON.parse(JSON.stringify(value).replaceAll('"#/$defs/', '"#/components/schemas/')) as Record<string, unknown>;
  const stated = (value: unknown) => (io === "input" ? withTextRules(value) : value);
  for (const [id, def] of Object.entries(defs)) components[id] = relink(stated(def));
  return relink(stated(json));
}

/*
 * Every request's raw input is checked before its schema (the catalog's
 * rawInputProblems, issue 30, finding 19): each text well-formed Unicode
 * without control characters other than tabs and line breaks, each field name
 * one line without them. Strings whose schema states no pattern of its own
 * (text()/cleanString() state theirs, one-line or not) and every object's field names get that rule
 * in the document, so it says what the handler refuses (finding 18).
 */
const ANY_TEXT = textPattern(true);
/**
 * A pattern with each end-of-input `$` (outside a character class) spelled
 * `(?![\s\S])`: the same in ECMA-262, but Python's `$` — the generators' —
 * also matches before a final line break, so they would send `"abc\n"` as
 * valid for `^[a-z]+$`, which the handler refuses.
 */
export function anchoredEnd(pattern: string): string {
  let out = "";
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === "\\") {
      out += c + (pattern[i + 1] ?? "");
      i++;
    } else if (inClass) {
      if (c === "]") inClass = false;
      out += c;
    } else if (c === "[") {
      inClass = true;
      out += c;
    } else out += c === "$" ? "(?![\\s\\S])" : c;
  }
  return out;
}
const FIELD_NAME = textPattern(false);
function withTextRules(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withTextRules);
  if (typeof value !== "object" || value === null) return value;
  const node = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, k === "properties" || k === "$defs" || k === "patternProperties" ? Object.fromEntries(Object.entries(v as Record<string, unknown>).map(([name, sub]) => [name, withTextRules(sub)])) : withTextRules(v)]));
  const types = Array.isArray(node.type) ? (node.type as unknown[]) : [node.type];
  if (typeof node.pattern === "string") node.pattern = anchoredEnd(node.pattern);
  if (types.includes("string") && node.pattern === undefined && node.enum === undefined && node.const === undefined && node.format === undefined) node.pattern = ANY_TEXT;
  if (types.includes("object")) {
    const names = (node.propertyNames ?? {}) as Record<string, unknown>;
    if (names.pattern === undefined && names.enum === undefined) node.propertyNames = { ...names, pattern: FIELD_NAME };
    // Fields a schema does not name are ignored, but their values are checked like the rest (rawInputProblems walks them too).
    const extra = node.additionalProperties;
    if (extra === undefined || extra === true || (typeof extra === "object" && extra !== null && Object.keys(extra).length === 0)) node.additionalProperties = { $ref: `#/components/schemas/${ANY_JSON}` };
  }
  return node;
}

/** Any JSON value whose texts and field names keep the raw-input rules: what a request may carry in fields its schema does not name. */
const ANY_JSON = "AnyCleanJson";
const anyCleanJson = {
  description: "Any JSON value whose texts and field names keep the text rules (no control characters other than tabs and line breaks; field names one line).",
  anyOf: [
    { type: "string", pattern: ANY_TEXT },
    { type: "number" },
    { type: "boolean" },
    { type: "null" },
    { type: "array", items: { $ref: `#/components/schemas/${ANY_JSON}` } },
    { type: "object", propertyNames: { pattern: FIELD_NAME }, additionalProperties: { $ref: `#/components/schemas/${ANY_JSON}` } },
  ],
};

/** Named response schemas (`.meta({ id })`) become components; they are inlined per use otherwise. */
function responseSchema(schema: z.ZodType): Record<string, unknown> {
  return schemaOf(schema, "output");
}

export function buildOpenApiDocument(serverUrl = "/api/v1"): Record<string, unknown> {
  components = {};
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of ROUTES) {
    const params = [...route.path.matchAll(/\{(\w+)\}/g)].map((m) => idParam(m[1]));
    const querySchema = route.query ? schemaOf(route.query, "input") : null;
    const required = new Set((querySchema?.required ?? []) as string[]);
    const query = querySchema
      ? Object.entries((querySchema.properties ?? {}) as Record<string, Record<string, unknown>>).map(([name, schema]) => ({ name, in: "query", required: required.has(name), schema: guardedParam(schema) }))
      : [];
    const status = String(route.status ?? 200);
    const content: Record<string, unknown> = route.produces ?? { "application/json": { schema: route.response ? responseSchema(route.response) : { type: "object" } } };
    if (route.alsoYaml) content["application/yaml"] = { schema: { type: "string", description: "The same document as YAML." } };
    const operation: Record<string, unknown> = {
      operationId: `${route.method}${route.path.replace(/\{(\w+)\}/g, "By_$1").replace(/[^A-Za-z0-9]+(.)/g, (_, c: string) => c.toUpperCase())}`,
      summary: route.summary,
      tags: [route.tag],
      ...(route.public ? { security: [] } : {}),
      ...(route.scope ? { description: `API tokens need the scope \`${route.scope}\` (and the user the matching role).` } : {}),
      ...(params.length + query.length > 0 ? { parameters: [...params, ...query] } : {}),
      ...(route.body ? { requestBody: { required: true, content: { "application/json": { schema: schemaOf(route.body, "input") } } } } : {}),
      responses: {
        [status]: { description: "Success", content },
        "400": { $ref: "#/components/responses/Error" },
        "401": { $ref: "#/components/responses/Error" },
        "403": { $ref: "#/components/responses/Error" },
        "404": { $ref: "#/components/responses/Error" },
        "409": { $ref: "#/components/responses/Error" },
        "422": { $ref: "#/components/responses/Error" },
        // A body over 1 MiB (by Content-Length in the proxy, or while reading a chunked one).
        ...(route.body ? { "413": { $ref: "#/components/responses/Error" } } : {}),
        // Node's HTTP server refuses request headers over its limit (16 KiB) before the portal sees them: no body.
        "431": { description: "Request header fields too large (over 16 KiB in all); the answer has no body." },
        ...(route.readsKafka ? { "503": { $ref: "#/components/responses/Error" } } : {}),
      },
    };
    (paths[route.path] ??= {})[route.method] = operation;
  }
  const errorResponse = { description: "A refusal: `{ error: { code, message, requestId, fields?, policy?, … } }`.", content: { "application/json": { schema: schemaOf(errorBody, "output") } } };
  return {
    openapi: "3.1.0",
    info: {
      title: "Kappa Mesh API",
      version: "1.0.0",
      description:
        "The self-serve streaming data mesh: data products, subscriptions, reviews, policies, ODCS contracts and API tokens. Authenticate with the portal's session cookie or `Authorization: Bearer <API token>` (create tokens on the API tokens page or with POST /tokens). An id of something you may not see (another domain's unpublished product, a subscription you are not part of, …) answers the same 404 as an id that does not exist, before the body is validated. Every text in a request (bodies, parameters, field names) is well-formed Unicode (I-JSON, RFC 7493): a lone UTF-16 surrogate (`\\ud800`, which JSON can spell) is refused with 400 naming the field; the patterns state the control characters each text refuses.",
    },
    servers: [{ url: serverUrl }],
    security: [{ bearer: [] }, { session: [] }],
    tags: [...new Set(ROUTES.map((r) => r.tag))].map((name) => ({ name })),
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", bearerFormat: "kappa_<43 characters>", description: "An API token; scopes read, write:<domain>, review, admin." },
        session: { type: "apiKey", in: "cookie", name: "next-auth.session-token", description: "The portal's sign-in session." },
      },
      responses: { Error: errorResponse },
      schemas: { ...components, [ANY_JSON]: anyCleanJson },
    },
  };
}
