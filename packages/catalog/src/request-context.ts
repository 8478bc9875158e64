/**
 * Where a request came from, as the audit log records it. The portal derives
 * it from the request headers (apps/portal/src/server/actor.ts); the catalog
 * only bounds what it stores, because both values are client-controlled text.
 */
export interface RequestContext {
  clientAddress: string | null;
  userAgent: string | null;
  /**
   * The portal's id of this request (x-request-id, apps/portal/src/proxy.ts): the audit events of the
   * request carry it in their data and the provisioning tasks it queues in their `requestId`, so one id
   * leads from the portal's log through the catalog to the worker's log lines about the task.
   */
  requestId?: string;
  /**
   * Set when an agent acts through the portal's MCP server (apps/portal/src/server/mcp):
   * the MCP client's name and version from its `initialize` and the tool called.
   * Audit events of the call carry both (recordAudit), so the log names the agent.
   */
  agent?: AgentContext;
}

export interface AgentContext {
  /** `<name> <version>` as the client declared it, bounded and stripped of control characters. */
  client: string;
  tool: string;
}

const MAX_AGENT_TEXT = 200;

const MAX_USER_AGENT = 512;
// IPv4, IPv6 (optionally bracketed, with a zone) or IPv4-mapped IPv6; nothing else is an address.
const ADDRESS = /^(\d{1,3}(\.\d{1,3}){3}|\[?[0-9a-fA-F:.]{2,45}(%[0-9A-Za-z]{1,16})?\]?)$/;

/** Strips control characters and bounds the length, so a hostile header cannot bloat or forge rows in an export. */
function cleanText(value: string, max: number): string | null {
  // eslint-disable-next-line no-control-regex
  const cleaned = value.replace(/[\u0000-\u001f\u007f]/g, "").trim();
  return cleaned === "" ? null : cleaned.slice(0, max);
}

/** What a request id may look like (a UUID, or a trusted proxy's id): short, no spaces or control characters. */
export const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export function normaliseRequestContext(
  raw: { clientAddress?: string | null; userAgent?: string | null; requestId?: string | null; agent?: { client?: string; tool?: string } } | undefined,
): RequestContext | undefined {
  if (!raw) return undefined;
  const address = raw.clientAddress?.trim() ?? "";
  const agent = raw.agent ? { client: cleanText(raw.agent.client ?? "", MAX_AGENT_TEXT) ?? "unknown", tool: cleanText(raw.agent.tool ?? "", MAX_AGENT_TEXT) ?? "unknown" } : undefined;
  return {
    clientAddress: ADDRESS.test(address) ? address.replace(/^\[|\]$/g, "") : null,
    userAgent: raw.userAgent ? cleanText(raw.userAgent, MAX_USER_AGENT) : null,
    ...(raw.requestId && REQUEST_ID.test(raw.requestId) ? { requestId: raw.requestId } : {}),
    ...(agent ? { agent } : {}),
  };
}

/** What an audit event's data gains when an agent acted: `via: "mcp"` (the audit log's MCP filter) and who and which tool. */
export function agentAuditData(request: RequestContext | undefined): { via: "mcp"; mcpClient: string; mcpTool: string } | Record<string, never> {
  return request?.agent ? { via: "mcp", mcpClient: request.agent.client, mcpTool: request.agent.tool } : {};
}

/**
 * The client address from an X-Forwarded-For chain. Each proxy appends the
 * address it saw, so with `proxies` trusted proxies in front of the portal the
 * client is the entry `proxies` places from the right (the first proxy wrote
 * it). With none, Next.js itself puts the socket address there — but only when
 * the request brought no header, so a client reaching the portal directly can
 * write its own: production sets the number of proxies and lets the outermost
 * one overwrite or append the header.
 */
export function clientAddressFrom(forwardedFor: string | null, proxies: number): string | null {
  if (!forwardedFor) return null;
  const chain = forwardedFor.split(",").map((s) => s.trim()).filter(Boolean);
  if (chain.length === 0) return null;
  return chain[Math.max(0, chain.length - Math.max(1, proxies))] ?? null;
}
