import type { Prisma } from "@prisma/client";
import type { Actor } from "../actor.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { normaliseRequestContext } from "../request-context.ts";

/**
 * One audit event per MCP tool call (`mcp.tool.called`), refusals included, on
 * the API token the agent used: reads leave no other trace than `token.used`,
 * and the rule is that every call an agent makes is in the log. The
 * event names the client and tool (recordAudit adds them from the actor's
 * request context) and the outcome: `ok` or the refusal's code. What the call
 * changed has its own events, which carry the same client and tool.
 */
export async function recordAgentCall(db: Db, actor: Actor, call: { outcome: string; detail?: Prisma.InputJsonObject }): Promise<void> {
  if (!actor.token || !actor.request?.agent) throw new Error("recordAgentCall needs an API-token actor with an agent context");
  // Bounded and stripped like every request context (the client's name is the client's to choose).
  const request = normaliseRequestContext(actor.request);
  await recordAudit(db, { ...actor, request }, "mcp.tool.called", "ApiToken", actor.token.id, { outcome: call.outcome.slice(0, 100), ...(call.detail ?? {}) });
}
