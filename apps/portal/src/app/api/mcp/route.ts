import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { UnauthenticatedError } from "@kappa/catalog";
import { env } from "@/env";
import { allowedOriginsFor, MAX_BODY_BYTES } from "@/lib/request-guard";
import { REQUEST_ID_HEADER } from "@/lib/request-id";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, HttpError, readBoundedText, requestId } from "@/server/http";
import { createMcpServer } from "@/server/mcp/server";
import { clientLabel, signSession, verifySession } from "@/server/mcp/session";
import { lazyMessageReader } from "@/server/message-reader";

/*
 * The Model Context Protocol server (issue 32) over MCP's Streamable HTTP
 * transport, stateless: each POST carries JSON-RPC messages and gets JSON
 * back; there is no server-initiated stream (GET and DELETE are 405, which
 * clients take as "not offered"). Authentication is an API token and nothing
 * else — a cookie session never reaches a tool, so a page on another site
 * cannot drive this endpoint with a signed-in user's browser (it cannot add
 * an Authorization header without a CORS preflight the portal never answers,
 * and a foreign Origin is refused outright, as the MCP specification asks of
 * servers against DNS rebinding).
 */

const SESSION_HEADER = "mcp-session-id";
const NO_STORE = "no-store";

function jsonRpcError(status: number, code: number, message: string, headers: Record<string, string> = {}): Response {
  return Response.json({ jsonrpc: "2.0", error: { code, message }, id: null }, { status, headers: { "cache-control": NO_STORE, ...headers } });
}

function unauthorized(message: string): Response {
  // RFC 6750: the client learns it needs a bearer token, and whether the one it sent was refused.
  return Response.json(
    { error: { code: "UNAUTHENTICATED", message } },
    { status: 401, headers: { "cache-control": NO_STORE, "www-authenticate": `Bearer realm="kappa-mesh", error="invalid_token", error_description="${message.replace(/"/g, "'")}"` } },
  );
}

export async function POST(request: Request): Promise<Response> {
  const id = await requestId();
  if (!request.headers.has("authorization")) {
    return unauthorized("The MCP endpoint takes an API token only: send Authorization: Bearer <token> (create one on the API tokens page). A signed-in browser session is not accepted here.");
  }
  const origin = request.headers.get("origin");
  const url = new URL(request.url);
  if (origin !== null && !allowedOriginsFor(env().NEXTAUTH_URL, request.headers.get("host"), url.protocol).includes(origin.toLowerCase())) {
    return jsonRpcError(403, -32000, "Requests from another origin are refused.");
  }
  try {
    const actor = await currentActor();
    const token = actor.token;
    if (!token) return unauthorized("Send an API token as Authorization: Bearer <token>.");

    let body: unknown;
    try {
      body = JSON.parse(await readBoundedText(request, MAX_BODY_BYTES));
    } catch (error) {
      if (error instanceof HttpError) return jsonRpcError(413, -32600, error.message);
      return jsonRpcError(400, -32700, "Parse error: the body is not JSON.");
    }
    const messages: unknown[] = Array.isArray(body) ? body : [body];
    const initialize = messages.find((m) => isInitializeRequest(m));
    const secret = env().NEXTAUTH_SECRET;
    let client: string;
    if (initialize) {
      client = clientLabel(initialize.params.clientInfo);
    } else {
      const sessionId = request.headers.get(SESSION_HEADER);
      if (sessionId === null) return jsonRpcError(400, -32000, "Bad Request: send the Mcp-Session-Id header that the initialize answer gave.");
      const session = verifySession(secret, sessionId, token.id);
      // 404 tells the client to initialize again (MCP's Streamable HTTP transport).
      if (!session) return jsonRpcError(404, -32001, "Session not found: initialize again with this token.");
      client = session.client;
    }

    const e = env();
    const server = createMcpServer({
      db: db(),
      actor: { ...actor, token },
      client,
      requestId: id,
      bootstrap: e.KAFKA_BOOTSTRAP_DISPLAY,
      reader: lazyMessageReader(),
      browse: { budgetMs: e.KAPPA_BROWSE_BUDGET_MS, ratePerMinute: e.KAPPA_BROWSE_PAGES_PER_MINUTE },
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    try {
      const answered = await transport.handleRequest(request, { parsedBody: body });
      const headers = new Headers(answered.headers);
      headers.set("cache-control", NO_STORE);
      headers.set(REQUEST_ID_HEADER, id);
      if (initialize && answered.ok) headers.set(SESSION_HEADER, signSession(secret, { client, tokenId: token.id }));
      // The whole answer is ready (JSON mode): read it before the server closes.
      const text = answered.status === 202 ? null : await answered.text();
      return new Response(text, { status: answered.status, headers });
    } finally {
      await server.close();
    }
  } catch (error) {
    if (error instanceof UnauthenticatedError) return unauthorized(error.message);
    return errorResponse(error);
  }
}
