import "server-only";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  CallToolRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool as McpTool,
} from "@modelcontextprotocol/sdk/types.js";
import { stringify } from "yaml";
import { z } from "zod";
import { asOverload, CatalogError, listSchemaVersions, productContract, recordAgentCall, searchProducts, ValidationError, type Actor } from "@kappa/catalog";
import { fitAnswer, MAX_ANSWER_CHARS } from "./limits";
import { requiredScopeText, scopeAllows, type ToolAccess } from "./scopes";
import { TOOLS, toolNamed, type Tool, type ToolContext } from "./tools";

/*
 * The portal's MCP server for one HTTP request (the route builds one per
 * request: nothing lives between requests, so any portal process answers any
 * call). The SDK's low-level Server speaks the protocol; this file maps its
 * requests onto the tools, resources and prompts, and keeps three rules:
 * a token's scopes bound what it may call (scopes.ts), every call is an
 * audit event naming the MCP client and tool (recordAgentCall; what a call
 * changes carries both too), and every answer is bounded (limits.ts).
 */

export const SERVER_INFO = { name: "kappa-mesh", version: "1.0.0" } as const;

const INSTRUCTIONS =
  "Kappa Mesh's data catalog. Find data products (Kafka event streams) with search_products, read one with get_product, " +
  "ask for access with request_subscription and follow it with get_subscription_status. You act as the user whose API token you hold: " +
  "the same permissions, policies and approvals apply, and every call is in the audit log.";

export interface McpRequestContext extends Omit<ToolContext, "actor"> {
  /** The token's user (full roles for reads; actions narrow them by the token's scopes). */
  actor: Actor & { token: NonNullable<Actor["token"]> };
  /** The client named at initialize (session.ts). */
  client: string;
  /** For the audit of unexpected errors. */
  requestId: string;
}

/** The tool's input as JSON Schema (zod 4's own output, as the OpenAPI document uses): what the agent fills in. */
function inputSchemaOf(tool: Tool): McpTool["inputSchema"] {
  const json = z.toJSONSchema(tool.input, {
    io: "input",
    unrepresentable: "any",
    override: (ctx) => {
      if (ctx.zodSchema._zod.def.type === "date") Object.assign(ctx.jsonSchema, { type: "string", format: "date-time" });
    },
  }) as Record<string, unknown>;
  delete json.$schema;
  return { ...json, type: "object" };
}

let listed: McpTool[] | undefined;
function toolList(): McpTool[] {
  listed ??= TOOLS.map((t) => ({ name: t.name, title: t.title, description: t.description, inputSchema: inputSchemaOf(t), annotations: { title: t.title, ...t.annotations } }));
  return listed;
}

const scopesOf = (ctx: McpRequestContext) => ctx.actor.token.scopes;

/** The actor of one call: the request's, naming the client and the tool for every audit event the call writes. */
function actorFor(ctx: McpRequestContext, tool: string): Actor {
  const request = ctx.actor.request ?? { clientAddress: null, userAgent: null };
  return { ...ctx.actor, request: { ...request, agent: { client: ctx.client, tool } } };
}

function answer(value: unknown): CallToolResult {
  return { content: [{ type: "text", text: JSON.stringify(fitAnswer(value)) }] };
}

function refusal(code: string, message: string, extra: Record<string, unknown> = {}): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify({ error: { code, message, ...extra } }) }] };
}

/** "Some fields need attention. purpose: State the purpose …; serviceAccountId: …" — the fields named in the message too, for clients that show only it. */
function validationMessage(error: ValidationError): string {
  const fields = Object.entries(error.fields ?? {}).map(([field, messages]) => `${field}: ${messages.join(" ")}`);
  return fields.length ? `Invalid arguments. ${fields.join("; ")}` : error.message;
}

/**
 * Runs one tool call: scope gate, then the tool (which parses its arguments
 * with the catalog's schema and calls the catalog), then the audit event.
 * Malformed arguments are a JSON-RPC "invalid params" error (-32602) whose
 * data names each field; refusals by the catalog (permissions, four eyes,
 * policy, conflicts) are tool results with `isError`, so the agent reads why.
 */
export async function callTool(ctx: McpRequestContext, name: string, rawArguments: unknown): Promise<CallToolResult> {
  const tool = toolNamed(name);
  if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool "${name.slice(0, 100)}". tools/list names the tools this token may call.`);
  const actor = actorFor(ctx, tool.name);
  const audit = (outcome: string) => recordAgentCall(ctx.db, actor, { outcome });
  if (!scopeAllows(tool.access, scopesOf(ctx))) {
    await audit("INSUFFICIENT_SCOPE");
    return refusal("INSUFFICIENT_SCOPE", `This API token cannot call ${tool.name}: it needs ${requiredScopeText(tool.access)}.`);
  }
  try {
    const result = await tool.call({ ...ctx, actor }, rawArguments);
    await audit("ok");
    return answer(result);
  } catch (thrown) {
    const error = asOverload(thrown);
    if (error instanceof ValidationError) {
      await audit(error.code);
      throw new McpError(ErrorCode.InvalidParams, validationMessage(error), { code: error.code, fields: error.fields ?? {} });
    }
    if (error instanceof CatalogError) {
      await audit(error.code);
      return refusal(error.code, error.message, { ...(error.fields ? { fields: error.fields } : {}), ...(error.details ?? {}) });
    }
    console.error(`[mcp] request ${ctx.requestId}: ${tool.name} failed`, error);
    await audit("INTERNAL").catch(() => undefined);
    return refusal("INTERNAL", `Something went wrong on our side; try again. If it persists, quote request id ${ctx.requestId}.`);
  }
}

const RESOURCE = /^kappa:\/\/products\/([^/]{1,300})\/(contract|schema)$/;

async function readResource(ctx: McpRequestContext, uri: string) {
  const match = RESOURCE.exec(uri);
  if (!match) throw new McpError(ErrorCode.InvalidParams, `Unknown resource "${uri.slice(0, 200)}": use kappa://products/{topic}/contract or kappa://products/{topic}/schema.`);
  const topic = decodeURIComponent(match[1] ?? "");
  const kind = match[2] as "contract" | "schema";
  const actor = actorFor(ctx, `resource:${kind}`);
  const requireRead: ToolAccess = "read";
  if (!scopeAllows(requireRead, scopesOf(ctx))) {
    await recordAgentCall(ctx.db, actor, { outcome: "INSUFFICIENT_SCOPE" });
    throw new McpError(ErrorCode.InvalidRequest, `This API token cannot read resources: it needs ${requiredScopeText(requireRead)}.`);
  }
  try {
    const product = await ctx.db.dataProduct.findUnique({ where: { topicName: topic }, select: { id: true } });
    // The catalog decides visibility: an unknown topic and one this user may not see read the same.
    const id = product?.id ?? topic;
    let text: string;
    let mimeType: string;
    if (kind === "contract") {
      text = stringify(await productContract(ctx.db, actor, id, { bootstrap: ctx.bootstrap }), { lineWidth: 0 });
      mimeType = "application/yaml";
    } else {
      const versions = await listSchemaVersions(ctx.db, actor, id);
      const current = versions.versions.find((v) => v.status === "APPROVED") ?? versions.versions[0];
      if (!current) throw new McpError(ErrorCode.InvalidParams, `${topic} has no schema version you may see.`);
      text = current.definition;
      mimeType = "application/json";
    }
    await recordAgentCall(ctx.db, actor, { outcome: "ok" });
    const bounded = text.length > MAX_ANSWER_CHARS ? `${text.slice(0, MAX_ANSWER_CHARS)}\n# …[truncated at ${MAX_ANSWER_CHARS} characters]` : text;
    return { contents: [{ uri, mimeType, text: bounded }] };
  } catch (error) {
    if (error instanceof CatalogError) {
      await recordAgentCall(ctx.db, actor, { outcome: error.code });
      throw new McpError(error.status === 404 ? ErrorCode.InvalidParams : ErrorCode.InvalidRequest, error.status === 404 ? `Data product ${topic} does not exist.` : error.message, { code: error.code });
    }
    throw error;
  }
}

const RESOURCES_PER_PAGE = 50;

const PROMPTS = [
  {
    name: "find_product",
    title: "Find a data product for …",
    description: "Find the data product that answers a need, and say who owns it, how fresh it is and how to get access.",
    arguments: [{ name: "need", description: "What the data is for, e.g. 'captured payments per order'", required: true }],
  },
  {
    name: "request_access",
    title: "Request access to …",
    description: "Request read access to a product for one of your domain's service accounts, and follow the request.",
    arguments: [
      { name: "product", description: "The product's topic or id", required: true },
      { name: "purpose", description: "Why the access is needed (the reviewers read this)", required: true },
    ],
  },
] as const;

function prompt(name: string, args: Record<string, string> | undefined) {
  const arg = (key: string) => {
    const value = (args?.[key] ?? "").trim().slice(0, 2000);
    if (!value) throw new McpError(ErrorCode.InvalidParams, `The prompt ${name} needs the argument "${key}".`);
    return value;
  };
  if (name === "find_product") {
    const need = arg("need");
    return {
      description: PROMPTS[0].description,
      messages: [
        {
          role: "user" as const,
          content: {
            type: "text" as const,
            text: `Find the Kappa Mesh data product for: ${need}\nUse search_products (try a few wordings and the domain or tag filters), then get_product on the best candidates. Tell me its topic, owners, classification, freshness against its SLA, and whether one of my domains already has access (list_my_subscriptions).`,
          },
        },
      ],
    };
  }
  if (name === "request_access") {
    const product = arg("product");
    const purpose = arg("purpose");
    return {
      description: PROMPTS[1].description,
      messages: [
        {
          role: "user" as const,
          content: {
            type: "text" as const,
            text: `Request read access to the Kappa Mesh product ${product} for this purpose: ${purpose}\nFirst read it with get_product and pick the right service account of my domain from list_my_subscriptions; check the request with explain_policy (action subscription.request); then call request_subscription and tell me its status and who decides.`,
          },
        },
      ],
    };
  }
  throw new McpError(ErrorCode.InvalidParams, `Unknown prompt "${name.slice(0, 100)}".`);
}

/** A protocol server bound to this request's token, client and catalog access. */
export function createMcpServer(ctx: McpRequestContext): Server {
  const server = new Server(SERVER_INFO, { capabilities: { tools: {}, resources: {}, prompts: {} }, instructions: INSTRUCTIONS });
  // Only the tools this token may call are listed (calling another is refused all the same).
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: toolList().filter((t) => scopeAllows(toolNamed(t.name)?.access ?? "decide", scopesOf(ctx))) }));
  server.setRequestHandler(CallToolRequestSchema, (request) => callTool(ctx, request.params.name, request.params.arguments));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({
    resourceTemplates: [
      { uriTemplate: "kappa://products/{topic}/contract", name: "contract", title: "A product's data contract (ODCS YAML)", mimeType: "application/yaml" },
      { uriTemplate: "kappa://products/{topic}/schema", name: "schema", title: "A product's current schema", mimeType: "application/json" },
    ],
  }));
  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    if (!scopeAllows("read", scopesOf(ctx))) return { resources: [] };
    const cursor = request.params?.cursor;
    const page = cursor && /^[1-9]\d{0,3}$/.test(cursor) ? Number(cursor) : 1;
    const found = await searchProducts(ctx.db, ctx.actor, { page, pageSize: RESOURCES_PER_PAGE, sort: "name" });
    return {
      resources: found.items.map((p) => ({ uri: `kappa://products/${encodeURIComponent(p.topicName)}/contract`, name: p.topicName, title: `${p.name} — contract`, mimeType: "application/yaml" })),
      ...(page < found.pageCount ? { nextCursor: String(page + 1) } : {}),
    };
  });
  server.setRequestHandler(ReadResourceRequestSchema, (request) => readResource(ctx, request.params.uri));
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: [...PROMPTS].map((p) => ({ ...p, arguments: [...p.arguments] })) }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => prompt(request.params.name, request.params.arguments));
  return server;
}
