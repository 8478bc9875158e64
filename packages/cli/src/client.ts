import type { CliConfig } from "./config.ts";

/** A refusal from the portal, with the API's code and per-field messages. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly body: unknown,
  ) {
    super(message);
    this.name = "ApiError";
  }
}

/**
 * The only way the CLI talks to Kappa Mesh: HTTP to the portal's /api/v1 with
 * `Authorization: Bearer <token>`. No package of the platform is imported.
 */
export class PortalClient {
  constructor(private readonly config: CliConfig) {}

  get url(): string {
    return this.config.url;
  }

  async request<T>(method: string, path: string, body?: unknown, accept = "application/json"): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.config.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${this.config.token}`, accept, ...(body === undefined ? {} : { "content-type": "application/json" }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new Error(`Cannot reach ${this.config.url}: ${error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)}`, { cause: error });
    }
    const text = await response.text();
    if (!response.ok) {
      let parsed: unknown = null;
      try {
        parsed = JSON.parse(text);
      } catch {
        // not JSON: keep the status line
      }
      const error = typeof parsed === "object" && parsed !== null && "error" in parsed ? (parsed as { error: { code?: string; message?: string; fields?: Record<string, string[]> } }).error : null;
      const fields = error?.fields ? Object.entries(error.fields).map(([k, v]) => `\n  ${k}: ${v.join(" ")}`).join("") : "";
      throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, `${error?.message ?? `${method} ${path} answered ${response.status}`}${fields}`, parsed);
    }
    if (!accept.includes("json")) return text as T;
    return (text ? JSON.parse(text) : null) as T;
  }

  get<T>(path: string, accept?: string): Promise<T> {
    return this.request<T>("GET", path, undefined, accept);
  }

  post<T>(path: string, body?: unknown): Promise<T> {
    return this.request<T>("POST", path, body ?? {});
  }
}
