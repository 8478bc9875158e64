import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  actingUser,
  approveProduct,
  authenticateApiToken,
  createApiToken,
  createServiceAccount,
  listAuditEvents,
  loadActor,
  recordAgentCall,
  registerProduct,
  requestSubscription,
  submitForReview,
  type Actor,
  type Db,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * What the portal's MCP server relies on in the catalog: an actor whose request
 * context names an agent (MCP client and tool) leaves that on every audit event
 * of the call, and the audit log filters those events (`via: "mcp"`).
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

async function agentActor(userId: keyof typeof ctx.as, scopes: string[], tool: string): Promise<Actor> {
  const { token } = await createApiToken(db, ctx.as[userId], { name: `agent ${tool}`, scopes, expiresInDays: 1 });
  const actor = await authenticateApiToken(db, token, { method: "POST", path: "/api/mcp" });
  return { ...actor, request: { clientAddress: "127.0.0.1", userAgent: "node", agent: { client: "claude-desktop 0.9.1\u0007", tool } } };
}

describe("audit events of agents", () => {
  it("name the MCP client and tool on the change and on the call, and the log filters them", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Agent Orders" }));
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    const account = await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-agent" });

    const agent = await agentActor("paymentsOwner", ["read", "write:payments"], "request_subscription");
    const subscription = await requestSubscription(db, actingUser(agent), { productId: product.id, serviceAccountId: account.id, purpose: "Reconcile captured payments against orders." });
    await recordAgentCall(db, agent, { outcome: "ok" });

    const requested = await db.auditEvent.findFirstOrThrow({ where: { entityId: subscription.id, action: "subscription.requested" } });
    // The control character the client sent is gone; the tool and the token are named.
    expect(requested.data).toMatchObject({ via: "mcp", mcpClient: "claude-desktop 0.9.1", mcpTool: "request_subscription", tokenId: agent.token?.id });
    const call = await db.auditEvent.findFirstOrThrow({ where: { action: "mcp.tool.called", entityId: agent.token?.id } });
    expect(call).toMatchObject({ entityType: "ApiToken", actorEmail: "owner@payments.test" });
    expect(call.data).toMatchObject({ via: "mcp", mcpClient: "claude-desktop 0.9.1", mcpTool: "request_subscription", outcome: "ok" });

    // A person's change the same way carries none of it.
    const byHand = await requestSubscription(db, ctx.as.paymentsOwner, {
      productId: product.id,
      serviceAccountId: (await createServiceAccount(db, ctx.as.paymentsOwner, { domainId: ctx.payments.id, name: "payments-hand" })).id,
      purpose: "Reconcile captured payments against orders.",
    });
    const manual = await db.auditEvent.findFirstOrThrow({ where: { entityId: byHand.id, action: "subscription.requested" } });
    expect(manual.data).not.toHaveProperty("via");

    const reviewer = await loadActor(db, ctx.people.reviewer.id);
    const filtered = await listAuditEvents(db, reviewer, { via: "mcp" });
    expect(filtered.items.map((e) => e.action).sort()).toEqual(["mcp.tool.called", "subscription.requested"]);
    expect(filtered.items.every((e) => (e.data as { via?: string }).via === "mcp")).toBe(true);
    const everything = await listAuditEvents(db, reviewer, {});
    expect(everything.total).toBeGreaterThan(filtered.total);
    await expect(listAuditEvents(db, reviewer, { via: "cli" })).rejects.toMatchObject({ status: 400, fields: { via: [expect.any(String)] } });
  });

  it("refuses to record a call without a token and an agent", async () => {
    const person = await loadActor(db, ctx.people.paymentsOwner.id);
    await expect(recordAgentCall(db, person, { outcome: "ok" })).rejects.toThrow(/API-token actor/);
  });
});
