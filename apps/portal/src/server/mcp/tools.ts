import "server-only";
import { stringify } from "yaml";
import { z } from "zod";
import {
  actingUser,
  activePolicy,
  approveChangeRequest,
  approveProduct,
  approveSubscription,
  browseMessages,
  diffSchemaFields,
  evaluatePolicy,
  getProduct,
  idField,
  lineageGraph,
  lineageQueryInput,
  listSchemaVersions,
  lookupStateKey,
  myDomains,
  NotFoundError,
  parseInput,
  pendingSchemaVersions,
  productContract,
  productFacts,
  productObservations,
  productSlo,
  qualityRulesInput,
  reasonInput,
  rejectChangeRequest,
  rejectProduct,
  rejectSubscription,
  requestSubscription,
  requestSubscriptionInput,
  restrictToScopes,
  reviewQueue,
  searchProducts,
  searchProductsInput,
  stateKeyInput,
  subscribableAccounts,
  subscriptionDetail,
  testQualityRules,
  text,
  ValidationError,
  type Actor,
  type Db,
  type RecordSource,
} from "@kappa/catalog";
import { MAX_PAGE_SIZE, MAX_SAMPLE_RECORDS, pageOf } from "./limits";
import type { ToolAccess } from "./scopes";

/*
 * The MCP server's tools. Each one is a thin adapter, like an /api/v1 route:
 * its input is parsed with the catalog's zod schema (the same one the route
 * uses, where there is a route), then it calls the catalog query or action the
 * route calls, as the token's user. No permission is decided here — the
 * catalog decides, with the same checks, policies, four eyes and audit events
 * as for a person — except which tools a token's scopes let it call at all
 * (scopes.ts). Answers are compact (an agent reads them) and paged.
 */

export interface ToolContext {
  db: Db;
  /** The token's user with full roles (reads, as /api/v1 reads), carrying the agent's client and tool for the audit log. */
  actor: Actor;
  bootstrap: string;
  reader: RecordSource;
  browse: { budgetMs: number; ratePerMinute: number };
}

interface ToolDefinition<S extends z.ZodType> {
  name: string;
  title: string;
  description: string;
  access: ToolAccess;
  input: S;
  /** MCP's hints: clients may ask before calling a tool that is not read-only. */
  annotations: { readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean; openWorldHint: boolean };
  run: (ctx: ToolContext, input: z.output<S>) => Promise<unknown>;
}

/** A tool as the server sees it: `call` parses the raw arguments with the tool's schema (a ValidationError naming each field) before running it. */
export interface Tool extends Omit<ToolDefinition<z.ZodType>, "run"> {
  call: (ctx: ToolContext, rawArguments: unknown) => Promise<unknown>;
}

function tool<S extends z.ZodType>(definition: ToolDefinition<S>): Tool {
  const { run, ...rest } = definition;
  return { ...rest, call: (ctx, rawArguments) => run(ctx, parseInput(definition.input, rawArguments ?? {})) };
}

const READ = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;
const WRITE = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false } as const;

/** A product named by its id or its topic (`orders.order-events.v1`). */
const productRef = text("The product", 300).pipe(z.string().min(1, "Name a product by its id or its topic."));
const page = z.number({ message: "page is a number" }).int().min(1, "page is at least 1").max(1000, "page is at most 1000").default(1);
const pageSize = (max: number, fallback: number) =>
  z.number({ message: "pageSize is a number" }).int().min(1, "pageSize is at least 1").max(max, `pageSize is at most ${max}`).default(fallback);

/**
 * The product's id from a reference. A topic that names nothing, or an
 * unpublished product of another domain, is the same "does not exist" with the
 * reference as given (the catalog's queries then decide what this actor may see).
 */
async function productIdOf(db: Db, ref: string): Promise<string> {
  if (!ref.includes(".")) return ref;
  const found = await db.dataProduct.findUnique({ where: { topicName: ref }, select: { id: true } });
  return found?.id ?? ref;
}

async function withProduct<T>(db: Db, ref: string, work: (id: string) => Promise<T>): Promise<T> {
  const id = await productIdOf(db, ref);
  try {
    return await work(id);
  } catch (error) {
    // The catalog's message names the id; the agent asked by topic and must learn nothing more.
    if (error instanceof NotFoundError) throw new NotFoundError("Data product", ref);
    throw error;
  }
}

const person = (u: { name: string; email: string } | null | undefined) => (u ? { name: u.name, email: u.email } : null);

const searchProductsTool = tool({
  name: "search_products",
  title: "Search data products",
  description:
    "Search the catalog of data products (Kafka-backed event streams) the way the portal's catalog page does: full text over names, topics, tags and descriptions, ranked the same way, with filters. Returns one page; ask for the next with `page`.",
  access: "read",
  input: searchProductsInput,
  annotations: READ,
  async run(ctx, input) {
    const result = await searchProducts(ctx.db, ctx.actor, input);
    return {
      items: result.items.map((p) => ({
        id: p.id,
        name: p.name,
        topic: p.topicName,
        status: p.status,
        classification: p.classification,
        domain: p.domain,
        tags: p.tags,
        description: p.description.length > 300 ? `${p.description.slice(0, 300)}…` : p.description,
        subscriptions: p._count.subscriptions,
      })),
      total: result.total,
      totalIsExact: result.totalIsExact,
      page: result.page,
      pageSize: result.pageSize,
      pageCount: result.pageCount,
      nextPage: result.page < result.pageCount ? result.page + 1 : null,
      match: result.match,
      suggestions: result.suggestions,
    };
  },
});

const productInput = z.object({ product: productRef });

const getProductTool = tool({
  name: "get_product",
  title: "Read a data product",
  description:
    "Everything about one data product: description, owners, SLA, classification, the contract as ODCS YAML, the current schema, freshness against its SLA and consumer lag, the tiered-storage replay window, and who consumes it as far as you may see. Name it by id or topic.",
  access: "read",
  input: productInput,
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      const product = await getProduct(ctx.db, ctx.actor, id);
      const [contract, observations, slo] = await Promise.all([
        productContract(ctx.db, ctx.actor, id, { bootstrap: ctx.bootstrap }),
        productObservations(ctx.db, ctx.actor, id, ctx.bootstrap),
        productSlo(ctx.db, ctx.actor, id),
      ]);
      const current = product.schemaVersions.find((v) => v.status === "APPROVED") ?? product.schemaVersions[0] ?? null;
      return {
        id: product.id,
        name: product.name,
        topic: product.topicName,
        status: product.status,
        description: product.description,
        domain: { slug: product.domain.slug, name: product.domain.name },
        owners: product.owners.map(person),
        contactEmail: product.contactEmail,
        classification: product.classification,
        tags: product.tags,
        sla: { freshnessSeconds: product.freshnessSeconds, availabilityPct: Number(product.availabilityPct) },
        topicConfig: { partitions: product.partitions, retentionMs: product.retentionMs, cleanupPolicy: product.cleanupPolicy, tieredStorage: product.tieredStorage },
        compatibilityMode: product.compatibilityMode,
        currentSchema: current ? { version: current.version, status: current.status, format: current.format, definition: current.definition } : null,
        contractYaml: stringify(contract, { lineWidth: 0 }),
        freshness: slo.freshness,
        firingAlerts: slo.firing,
        throughput: observations.topic ? { messagesPerSecond: observations.topic.messagesPerSecond, observedAt: observations.topic.observedAt } : null,
        tieredStorage: observations.tieredStorage,
        replayWindow: observations.replay,
        lag: observations.consumers.map((c) => ({ group: c.groupId, account: c.account, domain: c.domainName, lagRecords: c.totalLag, lagMs: c.timeLagMs, state: c.state, observedAt: c.observedAt })),
        // No quality checks are recorded in the catalog yet: nothing to show rather than something invented.
        quality: null,
        consumers: product.subscriptions.map((s) => ({ domain: s.consumingDomain.name, account: s.serviceAccount.name, status: s.status, environment: s.environment })),
        inputProducts: product.inputProducts,
        derivedProducts: product.derivedProducts,
        you: product.viewer,
      };
    });
  },
});

const getSchemaTool = tool({
  name: "get_schema",
  title: "Read a product's schema",
  description:
    "A product's schema: the current version, a given `version`, or with `compareTo` the field-by-field difference between two versions (added, removed, changed fields). Lists the versions you may see.",
  access: "read",
  input: z.object({
    product: productRef,
    version: z.number({ message: "version is a number" }).int().min(1, "version is at least 1").optional(),
    compareTo: z.number({ message: "compareTo is a number" }).int().min(1, "compareTo is at least 1").optional(),
  }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      const listed = await listSchemaVersions(ctx.db, ctx.actor, id);
      const pick = (n: number | undefined, field: string) => {
        const found = n === undefined ? (listed.versions.find((v) => v.status === "APPROVED") ?? listed.versions[0]) : listed.versions.find((v) => v.version === n);
        if (!found) throw new ValidationError("Some fields need attention.", { [field]: [n === undefined ? "This product has no schema version you may see." : `Version ${n} does not exist or is not visible to you.`] });
        return found;
      };
      const chosen = pick(input.version, "version");
      const summary = listed.versions.map((v) => ({ version: v.version, status: v.status, createdAt: v.createdAt, schemaId: v.schemaId }));
      const base = { product: id, compatibilityMode: listed.compatibilityMode, versions: summary };
      if (input.compareTo === undefined) {
        return { ...base, schema: { version: chosen.version, status: chosen.status, format: chosen.format, fingerprint: chosen.fingerprint, definition: chosen.definition } };
      }
      const other = pick(input.compareTo, "compareTo");
      const [older, newer] = other.version < chosen.version ? [other, chosen] : [chosen, other];
      const changes = diffSchemaFields(newer.format, older.definition, newer.definition).filter((c) => c.change !== "unchanged");
      return { ...base, diff: { from: older.version, to: newer.version, changes } };
    });
  },
});

const getLineageTool = tool({
  name: "get_lineage",
  title: "Read a product's lineage",
  description:
    "Upstream and downstream of a product: declared inputs and derived products (`depth` hops), and who reads it — each edge says whether access is granted and whether consumption is observed on the cluster. At most 100 nodes and 200 edges.",
  access: "read",
  input: lineageQueryInput.omit({ productId: true }).extend({ product: productRef }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      const graph = await lineageGraph(ctx.db, ctx.actor, { productId: id, depth: input.depth, unusedDays: input.unusedDays });
      return { ...graph, nodes: graph.nodes.slice(0, 100), edges: graph.edges.slice(0, 200), shown: { nodes: Math.min(100, graph.nodes.length), of: graph.nodes.length } };
    });
  },
});

const listMySubscriptionsTool = tool({
  name: "list_my_subscriptions",
  title: "List my domains' subscriptions",
  description:
    "The subscriptions of the domains you belong to (what your service accounts may read, or have asked to), newest first, one page at a time; and the service accounts you may request access for (their ids go into request_subscription).",
  access: "read",
  input: z.object({ page, pageSize: pageSize(MAX_PAGE_SIZE, 20), status: z.enum(["REQUESTED", "APPROVED", "ACTIVE", "REJECTED", "REVOKED", "EXPIRED"]).optional() }),
  annotations: READ,
  async run(ctx, input) {
    const [domains, accounts] = await Promise.all([myDomains(ctx.db, ctx.actor), subscribableAccounts(ctx.db, ctx.actor)]);
    const all = domains
      .flatMap((d) =>
        d.subscriptions.map((s) => ({
          id: s.id,
          status: s.status,
          domain: d.slug,
          account: s.serviceAccount.name,
          product: { id: s.product.id, name: s.product.name, topic: s.product.topicName, status: s.product.status },
          environment: s.environment,
          purpose: s.purpose,
          createdAt: s.createdAt,
          expiresAt: s.expiresAt,
        })),
      )
      .filter((s) => !input.status || s.status === input.status)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime());
    return {
      ...pageOf(all, input.page, input.pageSize),
      accounts: accounts.slice(0, MAX_PAGE_SIZE).map((a) => ({ id: a.id, name: a.name, domain: a.domain.slug, openSubscriptions: a._count.subscriptions })),
    };
  },
});

const requestSubscriptionTool = tool({
  name: "request_subscription",
  title: "Request access to a product",
  description:
    "Ask for read access to a product for one of your domain's service accounts (ids from list_my_subscriptions), with the purpose and whether personal data must be unmasked. This files the same request a person makes in the portal: the product's owners or governance decide; the policy in force applies.",
  access: "write",
  input: requestSubscriptionInput,
  annotations: WRITE,
  async run(ctx, input) {
    const created = await requestSubscription(ctx.db, actingUser(ctx.actor), input);
    return {
      id: created.id,
      status: created.status,
      productId: created.productId,
      serviceAccountId: created.serviceAccountId,
      environment: created.environment,
      next: created.status === "REQUESTED" ? "The product's owners or governance decide; follow it with get_subscription_status." : "Approved at once; credentials are issued within seconds.",
    };
  },
});

const getSubscriptionStatusTool = tool({
  name: "get_subscription_status",
  title: "Read a subscription's status",
  description: "A subscription's status, decision, provisioning steps, the state of its service account's credentials (never the secret itself) and how to connect.",
  access: "read",
  input: z.object({ subscriptionId: idField("The subscription id", "Give a subscription id.") }),
  annotations: READ,
  async run(ctx, input) {
    const s = await subscriptionDetail(ctx.db, ctx.actor, input.subscriptionId, ctx.bootstrap);
    return {
      id: s.id,
      status: s.status,
      environment: s.environment,
      purpose: s.purpose,
      reason: s.reason,
      pii: { requested: s.pii.requested, approvedAt: s.pii.approvedAt },
      createdAt: s.createdAt,
      decidedAt: s.decidedAt,
      expiresAt: s.expiresAt,
      product: s.product,
      consumingDomain: s.consumingDomain,
      serviceAccount: s.serviceAccount,
      credentials: s.credentials,
      connection: s.connection,
      provisioning: s.provisioning.map((t) => ({ step: t.step, label: t.label, status: t.status, lastError: t.lastError })),
      lag: s.consumers,
    };
  },
});

const sampleRecordsTool = tool({
  name: "sample_records",
  title: "Sample a product's newest records",
  description: `A few of a product's newest records (at most ${MAX_SAMPLE_RECORDS}), decoded with its schema and masked by classification exactly as the portal's message browser shows them to you. Only the owning domain and domains with an approved subscription may read records.`,
  access: "read",
  input: z.object({
    product: productRef,
    limit: z.number({ message: "limit is a number" }).int().min(1, "limit is at least 1").max(MAX_SAMPLE_RECORDS, `limit is at most ${MAX_SAMPLE_RECORDS}`).default(5),
    partition: z.number({ message: "partition is a number" }).int().min(0, "partition is at least 0").max(9999, "partition is at most 9999").optional(),
  }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      // Newest first from the end of the log: the message browser's first page, with no cursor to page on.
      const query = { direction: "backward", limit: String(input.limit), ...(input.partition === undefined ? {} : { partition: String(input.partition) }) };
      const page = await browseMessages(ctx.db, ctx.actor, id, query, ctx.reader, ctx.browse);
      return { records: page.records, order: page.order, role: page.role, piiVisible: page.piiVisible, sensitivePaths: page.sensitivePaths, stoppedEarly: page.truncated };
    });
  },
});

const testQualityRulesTool = tool({
  name: "test_quality_rules",
  title: "Test data-quality rules on a product's newest records",
  description:
    "Evaluates data-quality rules as given — the whole list, unsaved — against a product's newest records (at most 200), as the product page's Test button does: per rule how many records passed, failed (the CEL expression was false) and erred (counted apart: the client lets such a record pass), and the newest failing records decoded and masked as the message browser shows them to you. Rules the catalog would refuse are refused naming rules.<i>.<field>. For the owners of the product's domain only (the test reads its records), with a write:<domain> token; nothing is saved — to change the rules, the owners submit them in the portal (PUT /api/v1/products/{id}/rules), reviewed by governance.",
  // The test reads records and only the owners run it: acting for the domain, as a write:<domain> token does.
  access: "write",
  input: z.object({ product: productRef, rules: qualityRulesInput.shape.rules }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      const r = await testQualityRules(ctx.db, actingUser(ctx.actor), id, { rules: input.rules }, ctx.reader, { ratePerMinute: ctx.browse.ratePerMinute });
      return { topic: r.topic, sampled: r.sampled, evaluated: r.evaluated, undecodable: r.undecodable, tombstones: r.tombstones, rules: r.rules, failingRecords: r.failingRecords, failing: r.failing, note: r.note };
    });
  },
});

const lookupLatestStateTool = tool({
  name: "lookup_latest_state",
  title: "Look up a key's latest value",
  description:
    "The latest value of one key of a compacted product (its latest-state view), decoded and masked as the portal's state view shows it, with the partition, offset and time it came from. `encoding: hex` for a binary key.",
  access: "read",
  input: z.object({ product: productRef, ...stateKeyInput.shape }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, (id) => lookupStateKey(ctx.db, ctx.actor, id, input.key, input.encoding));
  },
});

const explainPolicyTool = tool({
  name: "explain_policy",
  title: "Explain the policy's verdict",
  description:
    "Evaluates the platform's policy in force, as the catalog would, without changing anything: `subscription.request` (productId, serviceAccountId, purpose) says which rules a request would fail or warn on; `product.update` says how a product's current definition fares. Every rule's id, severity, outcome and message. Permissions (who may act) are not part of the policy: the action itself still checks them.",
  access: "read",
  input: z
    .object({
      action: z.enum(["subscription.request", "product.update"], { message: "action is subscription.request or product.update" }),
      product: productRef,
      serviceAccountId: idField("The service account id", "Choose a service account.").optional(),
      purpose: text("The purpose", 4000).optional(),
    })
    .superRefine((v, issue) => {
      if (v.action !== "subscription.request") return;
      if (!v.serviceAccountId) issue.addIssue({ code: "custom", path: ["serviceAccountId"], message: "A subscription request names the service account." });
      if (v.purpose === undefined) issue.addIssue({ code: "custom", path: ["purpose"], message: "A subscription request states its purpose." });
    }),
  annotations: READ,
  async run(ctx, input) {
    return withProduct(ctx.db, input.product, async (id) => {
      const [product, policy] = await Promise.all([getProduct(ctx.db, ctx.actor, id), activePolicy(ctx.db)]);
      if (input.action === "product.update") {
        const schema = product.schemaVersions.find((v) => v.status === "APPROVED") ?? product.schemaVersions[0] ?? null;
        return { policyVersion: policy.version, ...evaluatePolicy(policy.document, "product.update", { product: productFacts(product, schema) }) };
      }
      // Only accounts this user may request with (the catalog's list of them) can be asked about.
      const account = (await subscribableAccounts(ctx.db, ctx.actor)).find((a) => a.id === input.serviceAccountId);
      if (!account) throw new ValidationError("Some fields need attention.", { serviceAccountId: ["Choose one of your domain's service accounts."] });
      const facts = { subscription: { purpose: input.purpose ?? "", accountName: account.name, openSubscriptionsOfAccount: account._count.subscriptions, productClassification: product.classification } };
      return { policyVersion: policy.version, ...evaluatePolicy(policy.document, "subscription.request", facts) };
    });
  },
});

const listReviewQueueTool = tool({
  name: "list_review_queue",
  title: "List the review queue",
  description:
    "What waits for your decision, oldest first: products in review and changes to live products (governance), and subscription requests (governance, and owners for their domains' products), each with the policy's verdict and `mine: true` where you made the request (you cannot decide those: four eyes). Only what this token's scopes let it decide.",
  access: "decide",
  input: z.object({ page, pageSize: pageSize(MAX_PAGE_SIZE, 20) }),
  annotations: READ,
  async run(ctx, input) {
    // Narrowed to the token's scopes: the queue shows what this token could decide.
    const actor = ctx.actor.token ? restrictToScopes(ctx.actor, ctx.actor.token) : ctx.actor;
    const [queue, schemaVersions] = await Promise.all([reviewQueue(ctx.db, actor), actor.globalRole === "USER" ? Promise.resolve([]) : pendingSchemaVersions(ctx.db, actor)]);
    const verdict = (p: { results: { ruleId: string; outcome: string; message: string }[] }) => p.results.filter((r) => r.outcome !== "pass").map((r) => ({ rule: r.ruleId, outcome: r.outcome, message: r.message }));
    const items = [
      ...queue.subscriptions.map((s) => ({
        kind: "subscription" as const,
        id: s.id,
        product: { id: s.product.id, name: s.product.name, topic: s.product.topicName, classification: s.product.classification },
        consumingDomain: s.consumingDomain.slug,
        account: s.serviceAccount.name,
        purpose: s.purpose,
        piiRequested: s.piiRequested,
        requestedBy: person(s.requestedBy),
        requestedAt: s.createdAt,
        mine: s.mine,
        policy: verdict(s.policy),
      })),
      ...queue.products.map((p) => ({
        kind: "product" as const,
        id: p.id,
        product: { id: p.id, name: p.name, topic: p.topicName, classification: p.classification },
        domain: p.domain.slug,
        requestedBy: person(p.submittedBy),
        requestedAt: p.submittedAt,
        mine: p.mine,
        policy: verdict(p.policy),
      })),
      ...queue.changes.map((c) => ({
        kind: "change" as const,
        id: c.id,
        change: c.kind,
        payload: c.payload,
        reason: c.reason,
        product: { id: c.product.id, name: c.product.name, topic: c.product.topicName },
        requestedBy: person(c.requestedBy),
        requestedAt: c.createdAt,
        mine: c.mine,
      })),
    ];
    return {
      ...pageOf(items, input.page, input.pageSize),
      // Schema versions are approved against the fingerprint the reviewer saw, in the portal (not by decide_review).
      pendingSchemaVersions: schemaVersions.length,
    };
  },
});

const decideReviewTool = tool({
  name: "decide_review",
  title: "Decide a review",
  description:
    "Approve or reject an item of your review queue (a subscription request, a product in review, or a change to a live product), with the reason for the decision. The same rules as in the portal: you cannot decide your own request or a change you made (four eyes), RESTRICTED products' subscriptions are governance's, and the policy in force is evaluated again.",
  access: "decide",
  input: z.object({
    kind: z.enum(["subscription", "product", "change"], { message: "kind is subscription, product or change" }),
    id: idField("The id", "Give the id of the item from list_review_queue."),
    decision: z.enum(["approve", "reject"], { message: "decision is approve or reject" }),
    reason: reasonInput.shape.reason,
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  async run(ctx, input) {
    const acting = actingUser(ctx.actor);
    const reason = { reason: input.reason };
    if (input.kind === "subscription") {
      const s = input.decision === "approve" ? await approveSubscription(ctx.db, acting, input.id) : await rejectSubscription(ctx.db, acting, input.id, reason);
      return { kind: input.kind, id: s.id, status: s.status, reason: input.reason };
    }
    if (input.kind === "product") {
      const p = input.decision === "approve" ? await approveProduct(ctx.db, acting, input.id, { comment: input.reason }) : await rejectProduct(ctx.db, acting, input.id, reason);
      return { kind: input.kind, id: p.id, status: p.status, reason: input.reason };
    }
    const c = input.decision === "approve" ? await approveChangeRequest(ctx.db, acting, input.id) : await rejectChangeRequest(ctx.db, acting, input.id, reason);
    return { kind: input.kind, id: c.id, status: c.status, reason: input.reason };
  },
});

/** Every tool, in the order tools/list shows them. Names are the contract (issue 32). */
export const TOOLS: readonly Tool[] = [
  searchProductsTool,
  getProductTool,
  getSchemaTool,
  getLineageTool,
  listMySubscriptionsTool,
  requestSubscriptionTool,
  testQualityRulesTool,
  getSubscriptionStatusTool,
  sampleRecordsTool,
  lookupLatestStateTool,
  explainPolicyTool,
  listReviewQueueTool,
  decideReviewTool,
];

export function toolNamed(name: string): Tool | undefined {
  return TOOLS.find((t) => t.name === name);
}
