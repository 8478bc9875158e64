import type { APIRequestContext } from "@playwright/test";

/*
 * The authorization matrix (issue 8): every route under src/app/api, for every
 * method it exports, called as each kind of caller, with the status each must
 * get. e2e/authorization.spec.ts runs it against the real portal;
 * src/authorization-matrix.test.ts fails when a route or method exists that
 * has no entry here (or an entry names a route that is gone).
 *
 * Adding a route: add one entry `"<METHOD> <route path as in the folder tree>"`
 * with a `request` that builds the call (fresh fixtures for calls that change
 * state, so each caller meets the same starting point) and the six statuses.
 * The callers, all demo accounts: `anonymous` (no session), `otherDomain`
 * (owner@payments.example, owner of another domain), `member`
 * (member@orders.example, a member but not an owner of orders), `owner`
 * (owner@orders.example), `reviewer` (governance) and `admin` (platform).
 * Resources belong to the orders domain unless the entry says otherwise.
 */

export const CALLERS = ["anonymous", "otherDomain", "member", "owner", "reviewer", "admin"] as const;
export type Caller = (typeof CALLERS)[number];

export interface Fixtures {
  /** A request context per caller with a session (not for `anonymous`). */
  as(caller: Exclude<Caller, "anonymous">): APIRequestContext;
  /** Ids of seeded demo rows. */
  ids: { orders: string; payments: string; orderEvents: string; subscribable: string };
  /** A fresh DRAFT product of orders. */
  draftProduct(): Promise<string>;
  /** A fresh DRAFT derived product of orders whose job the worker observed RUNNING (rows written as the portal and worker would). */
  derivedProduct(): Promise<string>;
  /** A fresh ACTIVE derived product of orders (INTERNAL) whose job runs — or, paused, was stopped with a savepoint (rows as the worker writes them). */
  activeDerivedProduct(options?: { paused?: boolean }): Promise<string>;
  /** A fresh IN_REVIEW product of orders (registered and submitted by its owner). */
  inReviewProduct(): Promise<string>;
  /** A fresh ACTIVE product of orders (approved; the test stands in for the worker's activation). */
  activeProduct(): Promise<string>;
  /** A fresh consumer account of payments. */
  paymentsAccount(): Promise<string>;
  /** A fresh consumer account of orders (no credentials issued yet). */
  ordersAccount(): Promise<string>;
  /** A fresh REQUESTED subscription of a payments account to an ACTIVE orders product of the matrix's own (ids.subscribable). */
  requestedSubscription(): Promise<string>;
  /** A fresh APPROVED subscription, as above. */
  approvedSubscription(): Promise<string>;
  /** A FAILED provisioning task of a fresh orders product (written as the worker would). */
  failedTask(): Promise<string>;
  /** A fresh DEPRECATED product of orders, nobody subscribed. */
  deprecatedProduct(): Promise<string>;
  /** A webhook endpoint of orders (one per run; a domain may have 10). */
  ordersWebhook(): Promise<string>;
  /** A webhook endpoint of orders to delete (the previous one is removed first). */
  disposableWebhook(): Promise<string>;
  /** A fresh personal API token of the orders owner. */
  ownerToken(): Promise<string>;
  /** The source of the policy in force. */
  policySource(): Promise<string>;
  /** A compacted ACTIVE product of orders, APPROVED for a payments account, with key "k1" in its latest-state view (shared). */
  compactedProduct(): Promise<string>;
  /** A fresh APPROVED payments subscription and a consumer group id of its account. */
  replayableSubscription(): Promise<{ id: string; group: string }>;
  /** A fresh APPROVED payments subscription that stated a PII need (not yet granted). */
  piiSubscription(): Promise<string>;
  /** A fresh ACTIVE product of orders whose owner asked for the `bulk` quota class (waiting for governance). */
  quotaClassProduct(): Promise<string>;
  /** A fresh APPROVED payments subscription that asked for the `bulk` quota class (approved by the owners, the class waiting for governance). */
  quotaClassSubscription(): Promise<string>;
  /** A fresh REQUESTED partition increase (by the orders owner) of a fresh ACTIVE product. */
  changeRequest(): Promise<string>;
  /** A fresh unmanaged topic as the worker's cluster scan records it. */
  unmanagedTopic(): Promise<string>;
  /** A fresh FIRING freshness alert of an ACTIVE orders product (written as the worker's alert evaluator would). */
  firingAlert(): Promise<string>;
  /** As firingAlert, its rule silenced for a day by the orders owner. */
  silencedAlert(): Promise<string>;
  /** A fresh IN_REVIEW product of orders claimed over an unmanaged topic. */
  claimedProduct(): Promise<string>;
  /** The topic of a fresh IN_REVIEW claim by orders. */
  claimedTopic(): Promise<string>;
  /** A fresh domain (created by the admin), and one that is archived. */
  freshDomain(): Promise<string>;
  archivedDomain(): Promise<string>;
  /** A fresh person (user id) who is a MEMBER of orders. */
  ordersPerson(): Promise<string>;
  /** A fresh SSO group mapping to orders. */
  ssoMapping(): Promise<string>;
  /** A fresh admin-added reserved principal. */
  reservedPrincipal(): Promise<string>;
  /** A registered cluster (environment) of the matrix's own, shared by the run; its id. */
  registeredCluster(): Promise<string>;
  /** A broker of registeredCluster() that the worker saw go down (rows as the worker writes them), fresh per call. */
  downBroker(): Promise<{ clusterId: string; nodeId: number }>;
  /** The environment name of registeredCluster(). */
  clusterEnvironment(): Promise<string>;
  /** A fresh IN_REVIEW promotion (by the orders owner) of a fresh ACTIVE product to registeredCluster(). */
  inReviewPromotion(): Promise<string>;
  /** An ODCS contract (YAML) of an orders product named `name`, from the examples. */
  contract(name: string): string;
  /** Product form fields of a new orders product. */
  productFields(name: string): Record<string, unknown>;
  /** The Schema Registry subject of ids.subscribable and the global id of its schema. */
  registry: { subject: string; schemaId: number };
  /** A DEK of `registry.subject` under the orders KEK `kappa-orders` (version 1, AES256_GCM; the KEK made by the registry, the row as it writes one). */
  registryDek(): Promise<void>;
  /** A fresh ACTIVE product of orders with a DEK under `kappa-orders` (the row as the registry writes one): something for an erasure request to destroy. */
  productWithDek(): Promise<string>;
  /** Avro texts: the fixtures' schema, a BACKWARD-compatible next version, a breaking one. */
  schemas: { current: string; compatible: string; breaking: string };
  /** A fresh PENDING schema version (proposed by the orders owner) of a fresh ACTIVE product. */
  pendingSchemaVersion(): Promise<{ id: string; fingerprint: string }>;
  /** A fresh APPROVED payments subscription to a product with a newer (live) major version. */
  supersededSubscription(): Promise<string>;
  unique(): string;
}

export interface MatrixCall {
  path: string;
  body?: unknown;
  /** Sent as a form (next-auth's own endpoints), not JSON. */
  form?: Record<string, string>;
}

export interface MatrixEntry {
  request(f: Fixtures, caller: Caller): Promise<MatrixCall> | MatrixCall;
  expect: Record<Caller, number>;
  /**
   * For routes that answer 200 with per-item results (contracts): what the
   * answer says happened, per caller that gets a 2xx, so a refusal inside a
   * 200 is checked too.
   */
  outcome?: { of(body: unknown): string; expect: Partial<Record<Caller, string>> };
}

/** The first item of a contracts answer: "applied"/"planned" when carried out, "refused" otherwise. */
function firstItem(body: unknown): { applied?: boolean; action?: string; errors?: string[] } {
  const items = (body as { items?: { applied?: boolean; action?: string; errors?: string[] }[] }).items;
  return items?.[0] ?? {};
}

const statuses = (anonymous: number, otherDomain: number, member: number, owner: number, reviewer: number, admin: number): Record<Caller, number> => ({
  anonymous,
  otherDomain,
  member,
  owner,
  reviewer,
  admin,
});

const inAWeek = () => new Date(Date.now() + 7 * 86_400_000).toISOString();

function productBody(f: Fixtures) {
  return {
    domainId: f.ids.orders,
    name: `Matrix Product ${f.unique()}`,
    description: "A product the authorization matrix registers.",
    classification: "INTERNAL",
    tags: ["matrix"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.example",
    schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "Matrix", fields: [{ name: "id", type: "string" }] }) },
  };
}

export const AUTHORIZATION_MATRIX: Record<string, MatrixEntry> = {
  // next-auth's own routes: public by design; a credentials post without its CSRF token is sent back to sign-in.
  "GET /api/auth/[...nextauth]": { request: () => ({ path: "/api/auth/session" }), expect: statuses(200, 200, 200, 200, 200, 200) },
  "POST /api/auth/[...nextauth]": {
    request: () => ({ path: "/api/auth/callback/credentials", form: { email: "owner@orders.example", password: "wrong" } }),
    expect: statuses(302, 302, 302, 302, 302, 302),
  },

  "GET /api/v1/audit-events": { request: () => ({ path: "/api/v1/audit-events" }), expect: statuses(401, 403, 403, 403, 200, 200) },
  "GET /api/v1/me": { request: () => ({ path: "/api/v1/me" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/v1/my-domains": { request: () => ({ path: "/api/v1/my-domains" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/v1/platform": { request: () => ({ path: "/api/v1/platform" }), expect: statuses(401, 403, 403, 403, 403, 200) },

  "GET /api/v1/products": { request: () => ({ path: "/api/v1/products?q=order" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/products": { request: (f) => ({ path: "/api/v1/products", body: productBody(f) }), expect: statuses(401, 403, 403, 201, 403, 403) },
  // A DRAFT is visible to its domain and to governance only; others get the same 404 as for a missing id.
  "GET /api/v1/products/[id]": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "PATCH /api/v1/products/[id]": {
    request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}`, body: { description: `Changed by the matrix ${f.unique()}.` } }),
    expect: statuses(401, 404, 403, 200, 403, 404),
  },
  "POST /api/v1/products/[id]/approve": { request: async (f) => ({ path: `/api/v1/products/${await f.inReviewProduct()}/approve` }), expect: statuses(401, 404, 403, 403, 200, 404) },
  "POST /api/v1/products/[id]/reject": {
    request: async (f) => ({ path: `/api/v1/products/${await f.inReviewProduct()}/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 404, 403, 403, 200, 404),
  },
  "POST /api/v1/products/[id]/submit": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/submit` }), expect: statuses(401, 404, 403, 200, 403, 404) },
  "POST /api/v1/products/[id]/deprecate": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/deprecate`, body: { reason: "Replaced by v2.", sunsetAt: inAWeek() } }),
    expect: statuses(401, 403, 403, 200, 403, 403),
  },
  "GET /api/v1/products/[id]/observations": { request: (f) => ({ path: `/api/v1/products/${f.ids.orderEvents}/observations` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/v1/products/[id]/cost": { request: (f) => ({ path: `/api/v1/products/${f.ids.orderEvents}/cost` }), expect: statuses(401, 403, 200, 200, 403, 200) },
  "GET /api/v1/costs": { request: () => ({ path: "/api/v1/costs?month=2026-11" }), expect: statuses(401, 200, 200, 200, 200, 200) },

  "POST /api/v1/provisioning-tasks/[id]/retry": {
    request: async (f) => ({ path: `/api/v1/provisioning-tasks/${await f.failedTask()}/retry` }),
    expect: statuses(401, 404, 403, 200, 200, 200),
  },
  // Governance and owners of any domain have a queue (theirs); a member has none.
  "GET /api/v1/review-queue": { request: () => ({ path: "/api/v1/review-queue" }), expect: statuses(401, 200, 403, 200, 200, 403) },

  "GET /api/v1/service-accounts": { request: () => ({ path: "/api/v1/service-accounts" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/service-accounts": {
    request: (f) => ({ path: "/api/v1/service-accounts", body: { domainId: f.ids.orders, name: `orders-matrix-${f.unique()}` } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  // Allowed for the owner, who then learns that nothing was issued yet (409); nobody else gets that far.
  // The account with its quota in force: members of its domain; anyone else (admins too) gets the 404 of an unknown id.
  "GET /api/v1/service-accounts/[id]": { request: async (f) => ({ path: `/api/v1/service-accounts/${await f.ordersAccount()}` }), expect: statuses(401, 404, 200, 200, 404, 404) },
  "POST /api/v1/service-accounts/[id]/credentials/reveal": {
    request: async (f) => ({ path: `/api/v1/service-accounts/${await f.ordersAccount()}/credentials/reveal` }),
    expect: statuses(401, 404, 403, 409, 403, 403),
  },
  "POST /api/v1/service-accounts/[id]/credentials/rotate": {
    request: async (f) => ({ path: `/api/v1/service-accounts/${await f.ordersAccount()}/credentials/rotate` }),
    expect: statuses(401, 404, 403, 202, 403, 403),
  },

  // Subscriptions: payments (otherDomain) consumes an orders product.
  "POST /api/v1/subscriptions": {
    request: async (f) => ({ path: "/api/v1/subscriptions", body: { productId: f.ids.subscribable, serviceAccountId: await f.paymentsAccount(), purpose: "Reconcile payments with orders." } }),
    expect: statuses(401, 201, 403, 403, 403, 403),
  },
  "GET /api/v1/subscriptions/[id]": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.requestedSubscription()}` }), expect: statuses(401, 200, 403, 200, 200, 404) },
  // The requesting side never decides on its own request (four eyes).
  "POST /api/v1/subscriptions/[id]/approve": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.requestedSubscription()}/approve` }),
    expect: statuses(401, 403, 403, 200, 200, 404),
  },
  "POST /api/v1/subscriptions/[id]/reject": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.requestedSubscription()}/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 403, 403, 200, 200, 404),
  },
  // The consuming domain may give up its own access; the product's owners and governance may take it away.
  "POST /api/v1/subscriptions/[id]/revoke": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/revoke`, body: { reason: "Access no longer needed." } }),
    expect: statuses(401, 200, 403, 200, 200, 404),
  },
  // API tokens: everyone signed in holds their own; a token of someone else is "not found" (no probing of ids).
  "GET /api/v1/tokens": { request: () => ({ path: "/api/v1/tokens" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/tokens": {
    request: (f) => ({ path: "/api/v1/tokens", body: { name: `matrix ${f.unique()}`, scopes: ["read"], expiresInDays: 1 } }),
    expect: statuses(401, 201, 201, 201, 201, 201),
  },
  "POST /api/v1/tokens/[id]/revoke": { request: async (f) => ({ path: `/api/v1/tokens/${await f.ownerToken()}/revoke` }), expect: statuses(401, 404, 404, 200, 404, 200) },

  // Policies: the one in force is public to signed-in users; history for governance and admins; changes for admins.
  "GET /api/v1/policies": { request: () => ({ path: "/api/v1/policies" }), expect: statuses(401, 403, 403, 403, 200, 200) },
  "POST /api/v1/policies": {
    request: async (f) => ({ path: "/api/v1/policies", body: { source: `${await f.policySource()}\n# republished by the authorization matrix ${f.unique()}\n`, reason: "Authorization matrix check." } }),
    expect: statuses(401, 403, 403, 403, 403, 201),
  },
  "GET /api/v1/policies/current": { request: () => ({ path: "/api/v1/policies/current" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/v1/policies/versions/[version]": { request: () => ({ path: "/api/v1/policies/versions/1" }), expect: statuses(401, 403, 403, 403, 200, 200) },

  // Notifications are each user's own.
  "GET /api/v1/notifications": { request: () => ({ path: "/api/v1/notifications" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/notifications/read": { request: () => ({ path: "/api/v1/notifications/read", body: { all: true } }), expect: statuses(401, 200, 200, 200, 200, 200) },

  // Webhooks: owners of the domain only.
  "GET /api/v1/domains/[id]/webhooks": { request: (f) => ({ path: `/api/v1/domains/${f.ids.orders}/webhooks` }), expect: statuses(401, 403, 403, 200, 403, 403) },
  "POST /api/v1/domains/[id]/webhooks": {
    request: (f) => ({ path: `/api/v1/domains/${f.ids.orders}/webhooks`, body: { url: `https://hooks.example.com/matrix/${f.unique()}`, description: "matrix", kinds: [] } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "PATCH /api/v1/webhooks/[id]": { request: async (f) => ({ path: `/api/v1/webhooks/${await f.ordersWebhook()}`, body: { description: "changed by the matrix" } }), expect: statuses(401, 404, 403, 200, 404, 403) },
  "DELETE /api/v1/webhooks/[id]": { request: async (f) => ({ path: `/api/v1/webhooks/${await f.disposableWebhook()}` }), expect: statuses(401, 404, 403, 200, 404, 403) },
  "POST /api/v1/webhooks/[id]/test": { request: async (f) => ({ path: `/api/v1/webhooks/${await f.ordersWebhook()}/test` }), expect: statuses(401, 404, 403, 202, 404, 403) },
  "GET /api/v1/webhooks/[id]/deliveries": { request: async (f) => ({ path: `/api/v1/webhooks/${await f.ordersWebhook()}/deliveries` }), expect: statuses(401, 404, 403, 200, 404, 403) },

  // Retirement: a deprecated product's plan is readable by everyone signed in; its owners retire it.
  "GET /api/v1/products/[id]/retirement": { request: async (f) => ({ path: `/api/v1/products/${await f.deprecatedProduct()}/retirement` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/products/[id]/retire": {
    request: async (f) => ({ path: `/api/v1/products/${await f.deprecatedProduct()}/retire`, body: { reason: "Replaced by the matrix's v2." } }),
    expect: statuses(401, 403, 403, 200, 403, 403),
  },
  // Records (message browser, latest-state view): the owning domain and active subscribers only — not
  // governance, not admins (reading data is a grant, not a role). This run has no worker, so the reader's
  // Kafka credentials are not issued: an allowed caller gets 503 NOT_CONFIGURED (after the access check);
  // the worker journey and browse.integration.test.ts read real records.
  "GET /api/v1/products/[id]/messages": {
    request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/messages?partition=0&offset=0` }),
    expect: statuses(401, 503, 503, 503, 403, 403),
  },
  // Dead letters (issue 29): the product's owners only — not its members, subscribers, governance or admins. The
  // shared product has no DLQ rule, so an owner gets 200 without the cluster being read.
  "GET /api/v1/products/[id]/dlq": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/dlq` }), expect: statuses(401, 403, 403, 200, 403, 403) },
  // Redrive (issue 29): requested and previewed by the owners (the shared product has no DLQ rule: 409 before the
  // cluster is read), listed and decided by the owners and governance (an unknown request: 404).
  "GET /api/v1/products/[id]/dlq/redrive": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/dlq/redrive` }), expect: statuses(401, 403, 403, 200, 200, 403) },
  "POST /api/v1/products/[id]/dlq/redrive": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/dlq/redrive`, body: { selection: { kind: "all" } } }), expect: statuses(401, 403, 403, 409, 403, 403) },
  "POST /api/v1/products/[id]/dlq/redrive/preview": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/dlq/redrive/preview`, body: { selection: { kind: "all" } } }), expect: statuses(401, 403, 403, 409, 403, 403) },
  "POST /api/v1/products/[id]/dlq/redrive/[requestId]/decision": {
    request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/dlq/redrive/no-such-request/decision`, body: { decision: "approve" } }),
    expect: statuses(401, 403, 403, 404, 404, 403),
  },
  "GET /api/v1/products/[id]/state": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/state` }), expect: statuses(401, 200, 200, 200, 403, 403) },
  "GET /api/v1/products/[id]/state/[key]": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/state/k1` }), expect: statuses(401, 200, 200, 200, 403, 403) },
  "POST /api/v1/products/[id]/state": { request: async (f) => ({ path: `/api/v1/products/${await f.compactedProduct()}/state`, body: { rebuild: true } }), expect: statuses(401, 403, 403, 202, 403, 403) },

  // Replay: owners of the subscribing domain only (503 as above: the preview reads the cluster).
  "POST /api/v1/subscriptions/[id]/replay": {
    request: async (f) => {
      const s = await f.replayableSubscription();
      return { path: `/api/v1/subscriptions/${s.id}/replay`, body: { group: s.group, to: "earliest", dryRun: true } };
    },
    expect: statuses(401, 503, 403, 403, 403, 404),
  },
  "GET /api/v1/subscriptions/[id]/replays": { request: async (f) => ({ path: `/api/v1/subscriptions/${(await f.replayableSubscription()).id}/replays` }), expect: statuses(401, 200, 403, 200, 200, 404) },
  // A PII need is granted by governance only, never by the product's owners.
  "POST /api/v1/subscriptions/[id]/approve-pii": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.piiSubscription()}/approve-pii` }), expect: statuses(401, 403, 403, 403, 200, 404) },

  // Client quota classes (issue 33): the quota in force with the account's usage is its domain's, governance's and
  // admins' to see (a subscription's: as its objectives); owners choose a product's class; governance decides a larger one.
  "GET /api/v1/products/[id]/quota": { request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/quota` }), expect: statuses(401, 403, 200, 200, 200, 200) },
  "GET /api/v1/subscriptions/[id]/quota": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/quota` }), expect: statuses(401, 200, 403, 200, 200, 404) },
  "PUT /api/v1/products/[id]/quota-class": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/quota-class`, body: { quotaClass: "standard" } }),
    expect: statuses(401, 403, 403, 200, 403, 403),
  },
  "POST /api/v1/products/[id]/quota-class/approve": { request: async (f) => ({ path: `/api/v1/products/${await f.quotaClassProduct()}/quota-class/approve` }), expect: statuses(401, 403, 403, 403, 200, 403) },
  "POST /api/v1/products/[id]/quota-class/reject": {
    request: async (f) => ({ path: `/api/v1/products/${await f.quotaClassProduct()}/quota-class/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 403, 403, 403, 200, 403),
  },
  "POST /api/v1/subscriptions/[id]/quota-class/approve": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.quotaClassSubscription()}/quota-class/approve` }), expect: statuses(401, 403, 403, 403, 200, 404) },
  "POST /api/v1/subscriptions/[id]/quota-class/reject": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.quotaClassSubscription()}/quota-class/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 403, 403, 403, 200, 404),
  },

  // Objectives and alerts: a product's freshness is as visible as the product; a subscription's objectives are
  // its domain's, its product owners' and governance's to see, and its domain's owners' to set.
  // A derived product's job: as visible as the product (an unpublished one: its domain and governance), read from the catalog.
  "GET /api/v1/products/[id]/job": { request: async (f) => ({ path: `/api/v1/products/${await f.derivedProduct()}/job` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  // Pausing, resuming and replaying it: owners of its domain only (governance and admins neither), the worker carries it out.
  "POST /api/v1/products/[id]/job/pause": { request: async (f) => ({ path: `/api/v1/products/${await f.activeDerivedProduct()}/job/pause` }), expect: statuses(401, 403, 403, 202, 403, 403) },
  "POST /api/v1/products/[id]/job/resume": { request: async (f) => ({ path: `/api/v1/products/${await f.activeDerivedProduct({ paused: true })}/job/resume` }), expect: statuses(401, 403, 403, 202, 403, 403) },
  "POST /api/v1/products/[id]/job/replay": { request: async (f) => ({ path: `/api/v1/products/${await f.activeDerivedProduct()}/job/replay`, body: { from: "earliest" } }), expect: statuses(401, 403, 403, 202, 403, 403) },
  // A new statement for its running job: owners of its domain only; planned by Flink, which the portal under test lacks (503 past every check).
  "PUT /api/v1/products/[id]/derived": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeDerivedProduct()}/derived`, body: { statement: "SELECT * FROM `orders.order-events.v1`", reason: "The matrix asks." } }),
    expect: statuses(401, 403, 403, 503, 403, 403),
  },
  // Data-quality rules (issue 29): read with the product; a draft's owners set them at once (a live product's wait for review).
  "GET /api/v1/products/[id]/quality": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/quality` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "GET /api/v1/products/[id]/rules": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/rules` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "PUT /api/v1/products/[id]/rules": {
    request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/rules`, body: { rules: [{ name: "matrix-rule", kind: "CEL", expression: "true", mode: "WRITE", onFailure: "ERROR" }] } }),
    expect: statuses(401, 404, 403, 200, 403, 404),
  },
  // The rule test reads the product's records: its domain's owners only (a draft has none: 409 NOT_ON_CLUSTER).
  "POST /api/v1/products/[id]/rules/test": {
    request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/rules/test`, body: { rules: [{ name: "matrix-rule", kind: "CEL", expression: "true", mode: "WRITE", onFailure: "ERROR" }] } }),
    expect: statuses(401, 404, 403, 409, 403, 404),
  },
  "GET /api/v1/products/[id]/slo": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/slo` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "GET /api/v1/subscriptions/[id]/objectives": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/objectives` }), expect: statuses(401, 200, 403, 200, 200, 404) },
  "PUT /api/v1/subscriptions/[id]/objectives": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/objectives`, body: { maxLagRecords: 1000, maxLagSeconds: 60 } }),
    expect: statuses(401, 200, 403, 403, 403, 404),
  },
  // Acknowledging and silencing an alert: the owners it is about (a freshness alert: the product's domain owners).
  "POST /api/v1/alerts/[id]/acknowledge": { request: async (f) => ({ path: `/api/v1/alerts/${await f.firingAlert()}/acknowledge` }), expect: statuses(401, 403, 403, 200, 403, 403) },
  "POST /api/v1/alerts/[id]/silence": { request: async (f) => ({ path: `/api/v1/alerts/${await f.firingAlert()}/silence`, body: { duration: "1h" } }), expect: statuses(401, 403, 403, 200, 403, 403) },
  "DELETE /api/v1/alerts/[id]/silence": { request: async (f) => ({ path: `/api/v1/alerts/${await f.silencedAlert()}/silence` }), expect: statuses(401, 403, 403, 200, 403, 403) },

  // Recertification: the product's owners and governance.
  "GET /api/v1/recertification": { request: () => ({ path: "/api/v1/recertification" }), expect: statuses(401, 200, 403, 200, 200, 403) },
  "POST /api/v1/subscriptions/[id]/recertify": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/recertify`, body: { decision: "keep", reason: "Still reconciles payments daily." } }),
    expect: statuses(401, 403, 403, 200, 200, 404),
  },
  "PUT /api/v1/subscriptions/[id]/expiry": {
    request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/expiry`, body: { expiresAt: inAWeek() } }),
    expect: statuses(401, 403, 403, 200, 200, 404),
  },

  // Change requests (a partition increase): governance decides; the requester never (four eyes).
  "POST /api/v1/products/[id]/partitions": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/partitions`, body: { partitions: 2, reason: "More parallel consumers." } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  // An owner's erasure request for the product's encryption keys (issue 29): owners ask, governance decides (four eyes).
  "POST /api/v1/products/[id]/key-erasure": {
    request: async (f) => ({ path: `/api/v1/products/${await f.productWithDek()}/key-erasure`, body: { reason: "Erasure obligation for the matrix.", irreversible: true } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "POST /api/v1/change-requests/[id]/approve": { request: async (f) => ({ path: `/api/v1/change-requests/${await f.changeRequest()}/approve` }), expect: statuses(401, 404, 403, 403, 200, 404) },
  "POST /api/v1/change-requests/[id]/reject": {
    request: async (f) => ({ path: `/api/v1/change-requests/${await f.changeRequest()}/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 404, 403, 403, 200, 404),
  },
  // What a change of data-quality rules would do: governance and the product's owners (a partition increase is no such change: 409).
  "GET /api/v1/change-requests/[id]/rules-impact": { request: async (f) => ({ path: `/api/v1/change-requests/${await f.changeRequest()}/rules-impact` }), expect: statuses(401, 404, 403, 409, 409, 404) },

  // Lineage is for everyone signed in, filtered: a DRAFT's neighbourhood is its domain's, governance's and admins'.
  "GET /api/v1/lineage": { request: async (f) => ({ path: `/api/v1/lineage?productId=${await f.draftProduct()}` }), expect: statuses(401, 404, 200, 200, 200, 200) },
  "PUT /api/v1/products/[id]/inputs": {
    request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/inputs`, body: { inputProductIds: [f.ids.subscribable] } }),
    expect: statuses(401, 404, 403, 200, 403, 404),
  },
  // Planning a derived product's statement: owners of the domain it is for. The portal under test runs without Flink
  // (no FLINK_SQL_GATEWAY_URL), so the owner, past every check, meets 503 naming the variable.
  "POST /api/v1/derived/validate": {
    request: (f) => ({ path: "/api/v1/derived/validate", body: { domainId: f.ids.orders, statement: "SELECT * FROM `orders.order-events.v1`" } }),
    expect: statuses(401, 403, 403, 503, 403, 403),
  },
  "GET /api/v1/products/[id]/drift": { request: (f) => ({ path: `/api/v1/products/${f.ids.orderEvents}/drift` }), expect: statuses(401, 403, 403, 200, 200, 200) },

  // The cluster browser: platform admins and owners of any domain; claims by owners of the claiming domain.
  "GET /api/v1/cluster/topics": { request: () => ({ path: "/api/v1/cluster/topics" }), expect: statuses(401, 200, 403, 200, 403, 200) },
  "POST /api/v1/cluster/topics/claim": {
    request: async (f) => ({ path: "/api/v1/cluster/topics/claim", body: { topic: await f.unmanagedTopic(), ...f.productFields(`Matrix Claim ${f.unique()}`) } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  // Schema inference of an unmanaged topic (the worker samples records no grant covers): platform admins only
  // (issue 30, finding 5), or the owners of an open claim an admin approved for sampling.
  "GET /api/v1/cluster/topics/schema-inference": { request: async (f) => ({ path: `/api/v1/cluster/topics/schema-inference?topic=${await f.unmanagedTopic()}` }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/cluster/topics/schema-inference": { request: async (f) => ({ path: "/api/v1/cluster/topics/schema-inference", body: { topic: await f.unmanagedTopic() } }), expect: statuses(401, 403, 403, 403, 403, 202) },
  "POST /api/v1/cluster/topics/sampling-approval": { request: async (f) => ({ path: "/api/v1/cluster/topics/sampling-approval", body: { topic: await f.claimedTopic() } }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/products/[id]/claim-acls": { request: async (f) => ({ path: `/api/v1/products/${await f.claimedProduct()}/claim-acls`, body: { decisions: [] } }), expect: statuses(401, 404, 403, 403, 200, 404) },

  // Administration: domains, people, global roles and the SSO mapping are the platform admins'; a domain's
  // owners manage its members.
  "GET /api/v1/domains": { request: () => ({ path: "/api/v1/domains" }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/domains": {
    request: (f) => ({ path: "/api/v1/domains", body: { slug: `mx-${f.unique()}`, name: `Matrix Domain ${f.unique()}` } }),
    expect: statuses(401, 403, 403, 403, 403, 201),
  },
  "PATCH /api/v1/domains/[id]": { request: async (f) => ({ path: `/api/v1/domains/${await f.freshDomain()}`, body: { name: `Matrix Renamed ${f.unique()}` } }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/domains/[id]/archive": { request: async (f) => ({ path: `/api/v1/domains/${await f.freshDomain()}/archive` }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/domains/[id]/restore": { request: async (f) => ({ path: `/api/v1/domains/${await f.archivedDomain()}/restore` }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "GET /api/v1/domains/[id]/members": { request: (f) => ({ path: `/api/v1/domains/${f.ids.orders}/members` }), expect: statuses(401, 403, 403, 200, 403, 200) },
  "POST /api/v1/domains/[id]/members": {
    // A person with an account (the admin creates it through another domain): owners add existing people only.
    request: async (f) => {
      const email = `matrix-${f.unique()}@people.example`;
      await f.as("admin").post(`/api/v1/domains/${f.ids.payments}/members`, { data: { email, role: "MEMBER" } });
      return { path: `/api/v1/domains/${f.ids.orders}/members`, body: { email, role: "MEMBER" } };
    },
    expect: statuses(401, 403, 403, 201, 403, 201),
  },
  "PATCH /api/v1/domains/[id]/members/[userId]": {
    request: async (f) => ({ path: `/api/v1/domains/${f.ids.orders}/members/${await f.ordersPerson()}`, body: { role: "MEMBER" } }),
    expect: statuses(401, 403, 403, 200, 403, 200),
  },
  "DELETE /api/v1/domains/[id]/members/[userId]": { request: async (f) => ({ path: `/api/v1/domains/${f.ids.orders}/members/${await f.ordersPerson()}` }), expect: statuses(401, 403, 403, 200, 403, 200) },
  "GET /api/v1/users": { request: () => ({ path: "/api/v1/users?q=example" }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "PATCH /api/v1/users/[id]": { request: async (f) => ({ path: `/api/v1/users/${await f.ordersPerson()}`, body: { globalRole: "USER" } }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "GET /api/v1/sso/group-mappings": { request: () => ({ path: "/api/v1/sso/group-mappings" }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/sso/group-mappings": {
    request: (f) => ({ path: "/api/v1/sso/group-mappings", body: { group: `matrix-${f.unique()}`, domainId: f.ids.orders, role: "MEMBER" } }),
    expect: statuses(401, 403, 403, 403, 403, 201),
  },
  "DELETE /api/v1/sso/group-mappings/[id]": { request: async (f) => ({ path: `/api/v1/sso/group-mappings/${await f.ssoMapping()}` }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "GET /api/v1/reserved-principals": { request: () => ({ path: "/api/v1/reserved-principals" }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/reserved-principals": {
    request: (f) => ({ path: "/api/v1/reserved-principals", body: { name: `matrix-reserved-${f.unique()}`, match: "EXACT", reason: "Reserved by the authorization matrix." } }),
    expect: statuses(401, 403, 403, 403, 403, 201),
  },
  "DELETE /api/v1/reserved-principals/[id]": { request: async (f) => ({ path: `/api/v1/reserved-principals/${await f.reservedPrincipal()}` }), expect: statuses(401, 403, 403, 403, 403, 200) },
  // Environments: clusters are the admins'; promotion is the owners'; its review governance's (four eyes).
  "GET /api/v1/clusters": { request: () => ({ path: "/api/v1/clusters" }), expect: statuses(401, 403, 403, 403, 403, 200) },
  "POST /api/v1/clusters": {
    request: (f) => ({ path: "/api/v1/clusters", body: { environment: `mx${f.unique().replace(/[^a-z0-9]/g, "").slice(-20)}`, bootstrap: "127.0.0.1:1", securityProtocol: "PLAINTEXT" } }),
    expect: statuses(401, 403, 403, 403, 403, 201),
  },
  "PATCH /api/v1/clusters/[id]": {
    request: async (f) => ({ path: `/api/v1/clusters/${await f.registeredCluster()}`, body: { bootstrap: "127.0.0.1:1", securityProtocol: "PLAINTEXT", maxPartitions: 12 } }),
    expect: statuses(401, 403, 403, 403, 403, 200),
  },
  "POST /api/v1/clusters/[id]/brokers/[nodeId]/forget": {
    request: async (f) => {
      const { clusterId, nodeId } = await f.downBroker();
      return { path: `/api/v1/clusters/${clusterId}/brokers/${nodeId}/forget`, body: { reason: "Decommissioned (authorization matrix)." } };
    },
    expect: statuses(401, 403, 403, 403, 403, 202),
  },
  "GET /api/v1/products/[id]/environments": { request: (f) => ({ path: `/api/v1/products/${f.ids.orderEvents}/environments` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/v1/products/[id]/promote": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/promote`, body: { environment: await f.clusterEnvironment() } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "POST /api/v1/promotions/[id]/approve": { request: async (f) => ({ path: `/api/v1/promotions/${await f.inReviewPromotion()}/approve` }), expect: statuses(401, 404, 403, 403, 200, 404) },
  "POST /api/v1/promotions/[id]/reject": {
    request: async (f) => ({ path: `/api/v1/promotions/${await f.inReviewPromotion()}/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 404, 403, 403, 200, 404),
  },
  // The whole log for governance and admins; an owner one of their products' history (entity filter).
  "GET /api/v1/audit-events/export": {
    request: (f) => ({ path: `/api/v1/audit-events/export?format=json&entityType=DataProduct&entityId=${f.ids.orderEvents}` }),
    expect: statuses(401, 403, 403, 200, 200, 200),
  },

  // Contracts: a DRAFT's contract is as visible as the DRAFT; the API description is public by design.
  "GET /api/v1/products/[id]/contract": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/contract` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "GET /api/v1/openapi.json": { request: () => ({ path: "/api/v1/openapi.json" }), expect: statuses(200, 200, 200, 200, 200, 200) },
  // Plan and apply answer per contract file: only the domain's owners get theirs carried out.
  "POST /api/v1/contracts/plan": {
    request: (f) => ({ path: "/api/v1/contracts/plan", body: { contracts: [{ content: f.contract("Returns"), source: "matrix.yaml" }] } }),
    expect: statuses(401, 200, 200, 200, 200, 200),
    outcome: {
      // A file of a domain the caller may not change is skipped with the reason (issue 31, point 7), or refused outright.
      of: (body) => (firstItem(body).action === "skipped" || (firstItem(body).errors ?? []).some((e) => e.includes("You cannot publish products")) ? "refused" : "planned"),
      expect: { otherDomain: "refused", member: "refused", owner: "planned", reviewer: "refused", admin: "refused" },
    },
  },
  "POST /api/v1/contracts": {
    request: (f) => ({ path: "/api/v1/contracts", body: { contracts: [{ content: f.contract(`Matrix Contract ${f.unique()}`), source: "matrix.yaml" }] } }),
    expect: statuses(401, 200, 200, 200, 200, 200),
    outcome: {
      of: (body) => (firstItem(body).applied === true ? "applied" : "refused"),
      expect: { otherDomain: "refused", member: "refused", owner: "applied", reviewer: "refused", admin: "refused" },
    },
  },
  // Schema governance: the product's owners propose, governance decides (never the proposer).
  "GET /api/v1/products/[id]/schema-versions": { request: async (f) => ({ path: `/api/v1/products/${await f.draftProduct()}/schema-versions` }), expect: statuses(401, 404, 200, 200, 200, 404) },
  "POST /api/v1/products/[id]/schema-versions": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/schema-versions`, body: { definition: f.schemas.compatible } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "POST /api/v1/products/[id]/schema-versions/check": {
    request: (f) => ({ path: `/api/v1/products/${f.ids.subscribable}/schema-versions/check`, body: { definition: f.schemas.compatible } }),
    expect: statuses(401, 403, 403, 200, 200, 403),
  },
  "GET /api/v1/schema-versions/[id]": { request: async (f) => ({ path: `/api/v1/schema-versions/${(await f.pendingSchemaVersion()).id}` }), expect: statuses(401, 404, 403, 200, 200, 404) },
  "POST /api/v1/schema-versions/[id]/approve": {
    request: async (f) => {
      const v = await f.pendingSchemaVersion();
      return { path: `/api/v1/schema-versions/${v.id}/approve`, body: { fingerprint: v.fingerprint } };
    },
    expect: statuses(401, 404, 403, 403, 200, 404),
  },
  "POST /api/v1/schema-versions/[id]/reject": {
    request: async (f) => ({ path: `/api/v1/schema-versions/${(await f.pendingSchemaVersion()).id}/reject`, body: { reason: "Not for the matrix." } }),
    expect: statuses(401, 404, 403, 403, 200, 404),
  },
  "POST /api/v1/products/[id]/major-version": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/major-version`, body: { definition: f.schemas.breaking, sunsetAt: inAWeek(), reason: "A breaking change of the id." } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "POST /api/v1/products/[id]/compatibility-mode": {
    request: async (f) => ({ path: `/api/v1/products/${await f.activeProduct()}/compatibility-mode`, body: { mode: "FULL", reason: "Consumers upgrade in both directions." } }),
    expect: statuses(401, 403, 403, 201, 403, 403),
  },
  "GET /api/v1/products/[id]/review": { request: async (f) => ({ path: `/api/v1/products/${await f.inReviewProduct()}/review` }), expect: statuses(401, 404, 403, 200, 200, 404) },
  // A subscription's successor notice: its domain, the product's owners, governance; carrying access over: its domain.
  "GET /api/v1/subscriptions/[id]/successor": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.approvedSubscription()}/successor` }), expect: statuses(401, 200, 403, 200, 200, 404) },
  "POST /api/v1/subscriptions/[id]/successor": { request: async (f) => ({ path: `/api/v1/subscriptions/${await f.supersededSubscription()}/successor` }), expect: statuses(401, 201, 403, 403, 403, 404) },
  // Everyone's own domains' notices.
  "GET /api/v1/my-domains/superseded": { request: () => ({ path: "/api/v1/my-domains/superseded" }), expect: statuses(401, 200, 200, 200, 200, 200) },

  // The MCP server (issue 32) takes API tokens only: a signed-in browser session is refused for everyone,
  // so no page on another site can drive an agent's tools with a user's cookies (tokens: e2e/mcp.spec.ts).
  "POST /api/mcp": {
    request: () => ({ path: "/api/mcp", body: { jsonrpc: "2.0", id: 1, method: "tools/list" } }),
    expect: statuses(401, 401, 401, 401, 401, 401),
  },

  // Prometheus metrics (issue 33): an admin API token, or any request whose TCP peer is loopback without
  // forwarding headers — which every caller here is (the runner is on the portal's host), so all get 200;
  // tokens and proxied requests: src/server/metrics/access.test.ts.
  "GET /api/metrics": { request: () => ({ path: "/api/metrics" }), expect: statuses(200, 200, 200, 200, 200, 200) },

  // The Schema-Registry-compatible API (sessions here; Basic/Bearer in its own tests): live products'
  // approved schemas are readable by everyone signed in; registering is for the domain's owners (and its
  // producer account) and returns the id of an approved identical schema; a mode change goes through review.
  "GET /api/schema-registry": { request: () => ({ path: "/api/schema-registry" }), expect: statuses(200, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/config": { request: () => ({ path: "/api/schema-registry/config" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/config/[subject]": { request: (f) => ({ path: `/api/schema-registry/config/${f.registry.subject}` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  // Agreeing with the mode in force changes nothing; any other level is a 403 for everyone (review in the portal).
  "PUT /api/schema-registry/config/[subject]": {
    request: (f, caller) => ({ path: `/api/schema-registry/config/${f.registry.subject}`, body: { compatibility: caller === "owner" ? "NONE" : "BACKWARD" } }),
    expect: statuses(401, 200, 200, 403, 200, 200),
  },
  "GET /api/schema-registry/schemas/types": { request: () => ({ path: "/api/schema-registry/schemas/types" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/schemas/ids/[id]": { request: (f) => ({ path: `/api/schema-registry/schemas/ids/${f.registry.schemaId}` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/schemas/ids/[id]/schema": { request: (f) => ({ path: `/api/schema-registry/schemas/ids/${f.registry.schemaId}/schema` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/schemas/ids/[id]/versions": { request: (f) => ({ path: `/api/schema-registry/schemas/ids/${f.registry.schemaId}/versions` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/subjects": { request: () => ({ path: "/api/schema-registry/subjects" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/schema-registry/subjects/[subject]": { request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}`, body: { schema: f.schemas.current } }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/subjects/[subject]/metadata": {
    request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}/metadata?key=major_version&value=1` }),
    expect: statuses(401, 200, 200, 200, 200, 200),
  },
  "GET /api/schema-registry/subjects/[subject]/versions": { request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}/versions` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/schema-registry/subjects/[subject]/versions": {
    request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}/versions`, body: { schema: f.schemas.current } }),
    expect: statuses(401, 403, 403, 200, 403, 403),
  },
  "GET /api/schema-registry/subjects/[subject]/versions/[version]": { request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}/versions/latest` }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "GET /api/schema-registry/subjects/[subject]/versions/[version]/schema": {
    request: (f) => ({ path: `/api/schema-registry/subjects/${f.registry.subject}/versions/1/schema` }),
    expect: statuses(401, 200, 200, 200, 200, 200),
  },
  "POST /api/schema-registry/compatibility/subjects/[subject]/versions": {
    request: (f) => ({ path: `/api/schema-registry/compatibility/subjects/${f.registry.subject}/versions`, body: { schema: f.schemas.compatible } }),
    expect: statuses(401, 200, 200, 200, 200, 200),
  },
  "POST /api/schema-registry/compatibility/subjects/[subject]/versions/[version]": {
    request: (f) => ({ path: `/api/schema-registry/compatibility/subjects/${f.registry.subject}/versions/latest`, body: { schema: f.schemas.compatible } }),
    expect: statuses(401, 200, 200, 200, 200, 200),
  },

  // The DEK Registry API (issue 29; service accounts in e2e/worker-data-contracts.spec.ts): KEKs are the platform's
  // (a client's registration is refused for everyone), a domain's KEK is visible to whoever reads one of its products,
  // only the domain's producer account creates DEKs, and a person gets a DEK without its key material.
  "POST /api/schema-registry/dek-registry/v1/keks": {
    request: (f) => ({ path: "/api/schema-registry/dek-registry/v1/keks", body: { name: `kappa-matrix-${f.unique()}`, kmsType: "local-kms", kmsKeyId: "mine", shared: true } }),
    expect: statuses(401, 403, 403, 403, 403, 403),
  },
  "GET /api/schema-registry/dek-registry/v1/keks/[name]": { request: () => ({ path: "/api/schema-registry/dek-registry/v1/keks/kappa-orders?deleted=false" }), expect: statuses(401, 200, 200, 200, 200, 200) },
  "POST /api/schema-registry/dek-registry/v1/keks/[name]/deks": {
    request: (f) => ({ path: "/api/schema-registry/dek-registry/v1/keks/kappa-orders/deks", body: { subject: f.registry.subject, version: 1, algorithm: "AES256_GCM" } }),
    expect: statuses(401, 403, 403, 403, 403, 403),
  },
  "POST /api/schema-registry/dek-registry/v1/keks/[name]/deks/[subject]": {
    request: (f) => ({ path: `/api/schema-registry/dek-registry/v1/keks/kappa-orders/deks/${f.registry.subject}`, body: { subject: f.registry.subject, version: 1, algorithm: "AES256_GCM" } }),
    expect: statuses(401, 403, 403, 403, 403, 403),
  },
  "GET /api/schema-registry/dek-registry/v1/keks/[name]/deks/[subject]/versions/[version]": {
    request: async (f) => {
      await f.registryDek();
      return { path: `/api/schema-registry/dek-registry/v1/keks/kappa-orders/deks/${f.registry.subject}/versions/1?algorithm=AES256_GCM&deleted=true` };
    },
    expect: statuses(401, 200, 200, 200, 200, 200),
    outcome: { of: (body) => ("keyMaterial" in (body as object) ? "key released" : "no key"), expect: { otherDomain: "no key", member: "no key", owner: "no key", reviewer: "no key", admin: "no key" } },
  },
};
