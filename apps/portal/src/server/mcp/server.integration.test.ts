// The MCP server's tools against the real catalog on PostgreSQL, through the
// SDK's own client over its in-memory transport (the HTTP transport, tokens
// and sessions are covered by e2e/mcp.spec.ts against the running portal).
// Records come from an in-memory RecordSource: what is tested here is that
// sample_records goes through the message browser's own path (access rule,
// decoding, masking), not Kafka.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { McpError, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import {
  approveProduct,
  authenticateApiToken,
  createApiToken,
  createServiceAccount,
  registerProduct,
  submitForReview,
  type Actor,
  type Db,
  type RecordSource,
  type SourceRecord,
} from "@kappa/catalog";
import { createTestDatabase } from "@kappa/catalog/testing";
import type {} from "@kappa/catalog/testing/global-setup";
import { createMcpServer } from "./server";

const CLIENT = "test-agent 1.2.3";
const TOPIC = "orders.customer-events.v1";

let db: Db;
let dispose: () => Promise<void>;
const ids: Record<string, string> = {};
const as: Record<string, { userId: string }> = {};

// Two JSON records on partition 0, the e-mail tagged PII in the schema.
const records: SourceRecord[] = [1, 2].map((n) => ({
  partition: 0,
  offset: BigInt(n - 1),
  timestamp: BigInt(Date.UTC(2026, 11, 5, 10, n)),
  timestampType: "CreateTime",
  key: Buffer.from(`c-${n}`),
  value: Buffer.from(JSON.stringify({ id: `c-${n}`, email: `person${n}@example.com` })),
  headers: [],
}));
const source: RecordSource = {
  bounds: async (_topic, partitions) => [{ partition: 0, earliest: 0n, end: BigInt(records.length) }].filter((b) => !partitions || partitions.includes(b.partition)),
  offsetsForTimestamp: async () => new Map(),
  read: async (_topic, _partition, from) => ({ records: records.filter((r) => r.offset >= from), next: BigInt(records.length), end: BigInt(records.length), undecodable: null }),
};

async function tokenActor(user: string, scopes: string[]): Promise<Actor & { token: NonNullable<Actor["token"]> }> {
  const created = await createApiToken(db, as[user]!, { name: `mcp ${user} ${scopes.join(" ")}`, scopes, expiresInDays: 1 });
  const actor = await authenticateApiToken(db, created.token, { method: "POST", path: "/api/mcp" });
  if (!actor.token) throw new Error("no token");
  return { ...actor, token: actor.token, request: { clientAddress: "127.0.0.1", userAgent: "vitest" } };
}

async function connect(user: string, scopes: string[]): Promise<Client> {
  const actor = await tokenActor(user, scopes);
  const server = createMcpServer({ db, actor, client: CLIENT, requestId: "test", bootstrap: "127.0.0.1:9092", reader: source, browse: { budgetMs: 5000, ratePerMinute: 600 } });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "test-agent", version: "1.2.3" });
  await client.connect(clientSide);
  return client;
}

/** A tool's answer as JSON, failing the test when the tool refused. */
async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Record<string, unknown>> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  expect(result.isError ?? false, `${name}: ${text}`).toBe(false);
  return JSON.parse(text) as Record<string, unknown>;
}

/** A tool's refusal: its code and message. */
async function refused(client: Client, name: string, args: Record<string, unknown>): Promise<{ code: string; message: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const text = result.content[0]?.type === "text" ? result.content[0].text : "";
  expect(result.isError, `${name} should be refused: ${text}`).toBe(true);
  return (JSON.parse(text) as { error: { code: string; message: string } }).error;
}

async function invalid(client: Client, name: string, args: Record<string, unknown>): Promise<McpError> {
  const error = await client.callTool({ name, arguments: args }).then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

beforeAll(async () => {
  ({ db, dispose } = await createTestDatabase(inject("pgAdminUrl")));
  const orders = await db.domain.create({ data: { slug: "orders", name: "Orders" } });
  const payments = await db.domain.create({ data: { slug: "payments", name: "Payments" } });
  const user = (email: string, globalRole: "USER" | "GOVERNANCE" = "USER") => db.user.create({ data: { email, name: email.split("@")[0] ?? email, globalRole } });
  const owner = await user("owner@orders.test");
  const consumer = await user("owner@payments.test");
  const reviewer = await user("reviewer@gov.test", "GOVERNANCE");
  const reviewer2 = await user("reviewer2@gov.test", "GOVERNANCE");
  await db.membership.createMany({
    data: [
      { userId: owner.id, domainId: orders.id, role: "OWNER" },
      { userId: consumer.id, domainId: payments.id, role: "OWNER" },
      // The reviewer also works in payments: they can request access, and must not decide their own request.
      { userId: reviewer.id, domainId: payments.id, role: "MEMBER" },
    ],
  });
  Object.assign(as, { owner: { userId: owner.id }, consumer: { userId: consumer.id }, reviewer: { userId: reviewer.id }, reviewer2: { userId: reviewer2.id } });
  ids.orders = orders.id;
  ids.payments = payments.id;
  const product = await registerProduct(db, as.owner!, {
    domainId: orders.id,
    name: "Customer Events",
    description: "Customers as they sign up and change their details.",
    classification: "CONFIDENTIAL",
    tags: ["customers"],
    freshnessSeconds: 60,
    availabilityPct: 99.9,
    partitions: 1,
    contactEmail: "owner@orders.test",
    schema: {
      format: "JSON_SCHEMA",
      definition: JSON.stringify({ type: "object", properties: { id: { type: "string" }, email: { type: "string", "x-pii": true } }, required: ["id"] }),
    },
  });
  await submitForReview(db, as.owner!, product.id);
  await approveProduct(db, as.reviewer!, product.id);
  ids.product = product.id;
  ids.account = (await createServiceAccount(db, as.consumer!, { domainId: payments.id, name: "payments-ledger" })).id;
  ids.reviewerAccount = (await createServiceAccount(db, as.consumer!, { domainId: payments.id, name: "payments-review-tool" })).id;
});
afterAll(async () => dispose());

const READ_TOOLS = ["search_products", "get_product", "get_schema", "get_lineage", "list_my_subscriptions", "get_subscription_status", "sample_records", "lookup_latest_state", "explain_policy"];

describe("the MCP server", () => {
  it("lists the tools a token's scopes allow, by their contract names", async () => {
    const all = (await (await connect("owner", ["read", "write:orders"])).listTools()).tools.map((t) => t.name);
    expect(all).toEqual([...READ_TOOLS.slice(0, 5), "request_subscription", "test_quality_rules", ...READ_TOOLS.slice(5), "list_review_queue", "decide_review"]);
    const readOnly = (await (await connect("consumer", ["read"])).listTools()).tools.map((t) => t.name);
    expect(readOnly).toEqual(READ_TOOLS);
    const writeOnly = (await (await connect("consumer", ["write:payments"])).listTools()).tools.map((t) => t.name);
    expect(writeOnly).toEqual(["request_subscription", "test_quality_rules", "list_review_queue", "decide_review"]);
    const tools = (await (await connect("owner", ["read", "write:orders"])).listTools()).tools;
    const request = tools.find((t) => t.name === "request_subscription");
    // The catalog's own schema, as JSON Schema: the agent sees the same bounds the API enforces.
    expect(request?.inputSchema).toMatchObject({ type: "object", required: expect.arrayContaining(["productId", "serviceAccountId", "purpose"]) });
    expect(request?.annotations?.readOnlyHint).toBe(false);
  });

  it("refuses a tool outside the token's scopes before anything runs, and audits the refusal", async () => {
    const readOnly = await connect("consumer", ["read"]);
    const before = await db.subscription.count();
    const refusal = await refused(readOnly, "request_subscription", { productId: ids.product, serviceAccountId: ids.account, purpose: "Reconcile customer records nightly." });
    expect(refusal).toMatchObject({ code: "INSUFFICIENT_SCOPE", message: expect.stringMatching(/write:<domain>/) });
    expect(await db.subscription.count()).toBe(before);
    const writeOnly = await connect("consumer", ["write:payments"]);
    expect((await refused(writeOnly, "search_products", { q: "customer" })).code).toBe("INSUFFICIENT_SCOPE");
    const audit = await db.auditEvent.findFirst({ where: { action: "mcp.tool.called", actorEmail: "owner@payments.test" }, orderBy: { id: "desc" } });
    expect(audit?.data).toMatchObject({ via: "mcp", mcpClient: CLIENT, mcpTool: "search_products", outcome: "INSUFFICIENT_SCOPE" });
  });

  it("finds and reads a product as a consumer: contract, schema, lineage, policy", async () => {
    const consumer = await connect("consumer", ["read", "write:payments"]);
    const found = await call(consumer, "search_products", { q: "customer" });
    expect(found).toMatchObject({ items: [{ id: ids.product, topic: TOPIC, classification: "CONFIDENTIAL", domain: { slug: "orders" } }], total: 1, nextPage: null });
    const product = await call(consumer, "get_product", { product: TOPIC });
    expect(product).toMatchObject({ id: ids.product, owners: [{ email: "owner@orders.test" }], sla: { freshnessSeconds: 60, availabilityPct: 99.9 }, classification: "CONFIDENTIAL", freshness: { targetSeconds: 60 } });
    expect(product.contractYaml).toMatch(/apiVersion: v3\.1\.0/);
    expect(product.contractYaml).toContain(TOPIC);
    expect(product.currentSchema).toMatchObject({ version: 1, format: "JSON_SCHEMA" });
    const schema = await call(consumer, "get_schema", { product: ids.product });
    expect(schema).toMatchObject({ schema: { version: 1, status: "APPROVED" }, versions: [{ version: 1 }] });
    expect((await invalid(consumer, "get_schema", { product: ids.product, version: 7 })).data).toMatchObject({ fields: { version: [expect.stringMatching(/Version 7/)] } });
    const lineage = await call(consumer, "get_lineage", { product: TOPIC });
    expect((lineage.nodes as { id: string }[]).map((n) => n.id)).toContain(`product:${ids.product}`);
    const policy = await call(consumer, "explain_policy", { action: "subscription.request", product: TOPIC, serviceAccountId: ids.account, purpose: "too short" });
    expect(policy).toMatchObject({ blocked: true, results: expect.arrayContaining([expect.objectContaining({ outcome: "fail", ruleId: expect.stringMatching(/purpose/) })]) });
    const missing = await refused(consumer, "get_product", { product: "orders.nothing-here.v1" });
    expect(missing).toMatchObject({ code: "NOT_FOUND", message: "Data product orders.nothing-here.v1 does not exist." });
    const resource = await consumer.readResource({ uri: `kappa://products/${TOPIC}/contract` });
    expect(resource.contents[0]).toMatchObject({ mimeType: "application/yaml", text: expect.stringMatching(/apiVersion: v3\.1\.0/) });
  });

  it("request → the owner's queue → approval → masked samples, every step audited with the client and tool", async () => {
    const consumer = await connect("consumer", ["read", "write:payments"]);
    const owner = await connect("owner", ["read", "write:orders"]);
    // No grant yet: records are refused, as in the message browser.
    expect(await refused(consumer, "sample_records", { product: TOPIC })).toMatchObject({ code: "FORBIDDEN" });

    const created = await call(consumer, "request_subscription", { productId: ids.product, serviceAccountId: ids.account, purpose: "Reconcile customer records with payments nightly." });
    expect(created).toMatchObject({ status: "REQUESTED" });
    const requested = await db.auditEvent.findFirstOrThrow({ where: { entityId: created.id as string, action: "subscription.requested" } });
    expect(requested.data).toMatchObject({ via: "mcp", mcpClient: CLIENT, mcpTool: "request_subscription" });

    const queue = await call(owner, "list_review_queue", {});
    expect(queue.items).toEqual([expect.objectContaining({ kind: "subscription", id: created.id, account: "payments-ledger", mine: false })]);
    const status = await call(consumer, "get_subscription_status", { subscriptionId: created.id });
    expect(status).toMatchObject({ status: "REQUESTED", serviceAccount: { name: "payments-ledger" } });
    expect(JSON.stringify(status)).not.toMatch(/password|secretHash/i);

    const decided = await call(owner, "decide_review", { kind: "subscription", id: created.id, decision: "approve", reason: "Payments reconciliation is a known use." });
    expect(decided).toMatchObject({ status: "APPROVED" });
    const approved = await db.auditEvent.findFirstOrThrow({ where: { entityId: created.id as string, action: "subscription.approved" } });
    expect(approved).toMatchObject({ actorEmail: "owner@orders.test", data: expect.objectContaining({ mcpTool: "decide_review", mcpClient: CLIENT }) });

    const sample = await call(consumer, "sample_records", { product: TOPIC, limit: 5 });
    expect(sample).toMatchObject({ order: "newest-first", role: "subscriber", piiVisible: false, sensitivePaths: ["email"] });
    const values = (sample.records as { key: unknown; value: { value: Record<string, unknown>; masked: string[] } }[]).map((r) => r.value);
    expect(values.map((v) => v.value.id)).toEqual(["c-2", "c-1"]);
    expect(values.every((v) => v.value.email !== "person1@example.com" && v.value.email !== "person2@example.com" && v.masked.includes("email"))).toBe(true);
    const own = await call(owner, "sample_records", { product: TOPIC, limit: 1 });
    expect(own).toMatchObject({ role: "owner", piiVisible: true, records: [{ value: { value: { id: "c-2", email: "person2@example.com" } } }] });
    const browsed = await db.auditEvent.findFirstOrThrow({ where: { entityId: ids.product, action: "product.messages-browsed", actorEmail: "owner@payments.test" } });
    expect(browsed.data).toMatchObject({ via: "mcp", mcpTool: "sample_records" });

    const mine = await call(consumer, "list_my_subscriptions", {});
    expect(mine).toMatchObject({ items: [{ id: created.id, status: "APPROVED", product: { topic: TOPIC } }], accounts: expect.arrayContaining([expect.objectContaining({ id: ids.account })]) });
    // Not compacted: no latest-state view to look in.
    expect((await refused(consumer, "lookup_latest_state", { product: TOPIC, key: "c-1" })).code).toBe("NOT_COMPACTED");
  });

  it("tests data-quality rules on the newest records for the product's owners, as the Test button does; nobody else, nothing saved", async () => {
    const owner = await connect("owner", ["write:orders"]);
    const rules = [{ name: "has-email", description: "", kind: "CEL", expression: "has(message.email)", mode: "WRITE", onFailure: "DLQ" }];
    const tested = await call(owner, "test_quality_rules", { product: TOPIC, rules });
    expect(tested).toMatchObject({ topic: TOPIC, evaluated: 2, rules: [{ name: "has-email", passed: 2, failed: 0, errored: 0 }], failingRecords: 0 });
    const strict = await call(owner, "test_quality_rules", { product: TOPIC, rules: [{ ...rules[0], name: "person-two", expression: "message.email == 'person2@example.com'" }] });
    expect(strict).toMatchObject({ rules: [{ name: "person-two", passed: 1, failed: 1 }], failingRecords: 1, failing: [{ failed: ["person-two"] }] });
    expect(await db.dataQualityRule.count({ where: { productId: ids.product } })).toBe(0);
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: ids.product, action: "product.rules-tested" }, orderBy: { id: "desc" } });
    expect(audit.data).toMatchObject({ via: "mcp", mcpTool: "test_quality_rules" });
    // Only the domain's owners: the test reads the product's records.
    expect((await refused(await connect("consumer", ["write:payments"]), "test_quality_rules", { product: TOPIC, rules })).code).toBe("FORBIDDEN");
    // A governance reviewer acting for their own domain may not either.
    expect((await refused(await connect("reviewer", ["write:payments", "review"]), "test_quality_rules", { product: TOPIC, rules })).code).toBe("FORBIDDEN");
    // A rule the catalog would refuse is an invalid-params error naming the field.
    const broken = await invalid(owner, "test_quality_rules", { product: TOPIC, rules: [{ ...rules[0], expression: "message.email ==" }] });
    expect(broken.message).toMatch(/rules\.0\.expression: Does not compile at line 1/);
  });

  it("keeps four eyes: a reviewer cannot decide their own request, another reviewer can", async () => {
    const reviewer = await connect("reviewer", ["read", "review", "write:payments"]);
    const created = await call(reviewer, "request_subscription", { productId: ids.product, serviceAccountId: ids.reviewerAccount, purpose: "Review tooling reads customer changes." });
    const queue = await call(reviewer, "list_review_queue", {});
    expect(queue.items).toEqual(expect.arrayContaining([expect.objectContaining({ id: created.id, mine: true })]));
    const own = await refused(reviewer, "decide_review", { kind: "subscription", id: created.id, decision: "approve", reason: "Looks fine to me." });
    expect(own.code).toBe("FOUR_EYES");
    expect((await db.subscription.findUniqueOrThrow({ where: { id: created.id as string } })).status).toBe("REQUESTED");
    const other = await connect("reviewer2", ["read", "review"]);
    expect(await call(other, "decide_review", { kind: "subscription", id: created.id, decision: "reject", reason: "Use the payments view instead." })).toMatchObject({ status: "REJECTED" });
    // A token without `review` does not see governance's queue even for a reviewer: not listed, and the queue
    // is read with the token's scopes (the reviewer is only a member of payments: no queue of their own).
    const readOnlyReviewer = await connect("reviewer2", ["read"]);
    expect((await readOnlyReviewer.listTools()).tools.map((t) => t.name)).not.toContain("decide_review");
    const writeOnlyReviewer = await connect("reviewer", ["read", "write:payments"]);
    expect((await refused(writeOnlyReviewer, "list_review_queue", {})).code).toBe("FORBIDDEN");
  });

  it("answers malformed or oversized arguments with an invalid-params error naming each field, writing nothing", async () => {
    const consumer = await connect("consumer", ["read", "write:payments"]);
    const before = await db.subscription.count();
    const error = await invalid(consumer, "request_subscription", { productId: ids.product, serviceAccountId: ids.account, purpose: "short", piiNeeded: "yes" });
    expect(error.code).toBe(-32602);
    expect(error.data).toMatchObject({ code: "VALIDATION_FAILED", fields: { purpose: [expect.any(String)], piiNeeded: [expect.any(String)] } });
    expect(error.message).toMatch(/purpose: .*piiNeeded: /);
    const huge = await invalid(consumer, "search_products", { q: "x".repeat(100_000) });
    expect(huge.data).toMatchObject({ fields: { q: [expect.stringMatching(/at most/)] } });
    const nul = await invalid(consumer, "get_product", { product: "orders.\u0000.v1" });
    expect(Object.keys((nul.data as { fields: object }).fields)).toEqual(["product"]);
    const tooMany = await invalid(consumer, "sample_records", { product: TOPIC, limit: 10_000 });
    expect(tooMany.data).toMatchObject({ fields: { limit: ["limit is at most 20"] } });
    const unknown = await invalid(consumer, "drop_everything", {});
    expect(unknown.message).toMatch(/Unknown tool/);
    expect(await db.subscription.count()).toBe(before);
  });
});
