/**
 * A client of Apache Flink's SQL Gateway REST API (v3, Flink 2.x): sessions,
 * statements, operations and their results, the calls the platform makes to
 * plan (validate) and deploy derived products. It talks HTTP to the gateway
 * only — never to Kafka.
 *
 *   POST   /v3/sessions                                  → { sessionHandle }
 *   POST   /v3/sessions/:s/statements  { statement }     → { operationHandle }
 *   GET    /v3/sessions/:s/operations/:o/result/:token?rowFormat=JSON
 *          → { resultType: NOT_READY|PAYLOAD|EOS, jobID?, results: { columns, data }, nextResultUri? }
 *   POST   /v3/sessions/:s/operations/:o/close
 *   DELETE /v3/sessions/:s
 * A statement that fails answers its result fetch with HTTP 500 and
 * `{ errors: ["Internal server error.", "<Java stack trace>"] }`.
 */

export interface FlinkColumn {
  name: string;
  logicalType: { type: string; nullable: boolean; [k: string]: unknown };
  comment?: string | null;
}

export interface StatementResult {
  columns: FlinkColumn[];
  rows: unknown[][];
  /** Set when the statement submitted a job (an INSERT, a query). */
  jobId: string | null;
}

/** Flink refused a statement: `message` is Flink's own (the innermost table-API exception), `line`/`column` where it points, if it does. */
export class FlinkStatementError extends Error {
  override name = "FlinkStatementError";
  constructor(
    message: string,
    readonly line: number | null,
    readonly column: number | null,
    readonly trace: string,
  ) {
    super(message);
  }
}

/** The gateway could not be reached or answered something that is not the REST API. */
export class FlinkUnavailableError extends Error {
  override name = "FlinkUnavailableError";
}

export interface SqlGatewayOptions {
  /** e.g. `http://127.0.0.1:8083` */
  url: string;
  /** Per HTTP call (default 30 s). */
  requestTimeoutMs?: number;
  /** How long a statement may take to answer its first rows or end (default 120 s). */
  statementTimeoutMs?: number;
}

export class SqlGatewayClient {
  readonly url: string;
  private readonly requestTimeoutMs: number;
  private readonly statementTimeoutMs: number;

  constructor(options: SqlGatewayOptions) {
    const parsed = new URL(options.url);
    if (parsed.protocol !== "http:" && parsed.protocol !== "https:") throw new Error(`the SQL Gateway URL must be http(s): ${options.url}`);
    this.url = parsed.origin + parsed.pathname.replace(/\/+$/, "");
    this.requestTimeoutMs = options.requestTimeoutMs ?? 30_000;
    this.statementTimeoutMs = options.statementTimeoutMs ?? 120_000;
  }

  private async call<T>(method: string, path: string, body?: unknown): Promise<T> {
    let response: Response;
    try {
      response = await fetch(`${this.url}${path}`, {
        method,
        headers: body === undefined ? {} : { "content-type": "application/json" },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(this.requestTimeoutMs),
      });
    } catch (error) {
      throw new FlinkUnavailableError(`The Flink SQL Gateway at ${this.url} did not answer (${error instanceof Error ? error.message : String(error)}).`);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      throw new FlinkUnavailableError(`The Flink SQL Gateway at ${this.url} answered ${method} ${path} with ${response.status} and no JSON.`);
    }
    if (!response.ok) {
      const errors = (parsed as { errors?: unknown }).errors;
      const trace = Array.isArray(errors) ? errors.filter((e): e is string => typeof e === "string").join("\n") : text;
      if (response.status >= 500 && /Exception/.test(trace)) throw flinkError(trace);
      throw new FlinkUnavailableError(`The Flink SQL Gateway answered ${method} ${path} with ${response.status}: ${trace.slice(0, 500)}`);
    }
    return parsed as T;
  }

  async info(): Promise<{ productName: string; version: string }> {
    return this.call("GET", "/v3/info");
  }

  /** Opens a session with these settings (`SET` keys, e.g. `table.dynamic-table-options.enabled`). */
  async openSession(properties: Record<string, string> = {}, sessionName?: string): Promise<string> {
    const { sessionHandle } = await this.call<{ sessionHandle: string }>("POST", "/v3/sessions", { properties, ...(sessionName ? { sessionName } : {}) });
    return sessionHandle;
  }

  async closeSession(session: string): Promise<void> {
    await this.call("DELETE", `/v3/sessions/${encodeURIComponent(session)}`).catch(() => {});
  }

  /**
   * Runs one statement and reads its result to the end — or, for a statement
   * that submits a streaming job (an INSERT), until the gateway answers the
   * job id (`untilJobId`), leaving the job running.
   */
  async execute(session: string, statement: string, options: { untilJobId?: boolean } = {}): Promise<StatementResult> {
    const s = encodeURIComponent(session);
    const { operationHandle } = await this.call<{ operationHandle: string }>("POST", `/v3/sessions/${s}/statements`, { statement });
    const o = encodeURIComponent(operationHandle);
    let uri: string | undefined = `/v3/sessions/${s}/operations/${o}/result/0?rowFormat=JSON`;
    const rows: unknown[][] = [];
    let columns: FlinkColumn[] = [];
    let jobId: string | null = null;
    const deadline = Date.now() + this.statementTimeoutMs;
    try {
      while (uri) {
        if (Date.now() > deadline) throw new FlinkUnavailableError(`Flink did not finish the statement within ${this.statementTimeoutMs / 1000} s.`);
        const page: ResultPage = await this.call<ResultPage>("GET", uri);
        if (page.results?.columns?.length) columns = page.results.columns;
        rows.push(...(page.results?.data ?? []).map((r) => r.fields));
        jobId ??= page.jobID ?? null;
        if (page.resultType === "EOS" || (options.untilJobId && jobId)) break;
        if (page.resultType === "NOT_READY" || (page.results?.data ?? []).length === 0) await new Promise((r) => setTimeout(r, 150));
        uri = page.nextResultUri;
      }
    } finally {
      if (!options.untilJobId) await this.call("POST", `/v3/sessions/${s}/operations/${o}/close`).catch(() => {});
    }
    return { columns, rows, jobId };
  }
}

interface ResultPage {
  resultType: "NOT_READY" | "PAYLOAD" | "EOS";
  jobID?: string;
  results?: { columns?: FlinkColumn[]; data?: { kind: string; fields: unknown[] }[] };
  nextResultUri?: string;
}

/** Exceptions whose message is the one a person should read: the planner's and the parser's own. */
const TABLE_EXCEPTIONS = /^(?:Caused by: )?(org\.apache\.flink\.table\.api\.(?:SqlParserException|ValidationException|TableException)|org\.apache\.flink\.sql\.parser\.error\.SqlValidateException|org\.apache\.calcite\.runtime\.CalciteContextException|org\.apache\.calcite\.sql\.validate\.SqlValidatorException|org\.apache\.flink\.table\.planner\.[A-Za-z.]*Exception): ([\s\S]*)$/;

/**
 * Turns the gateway's stack trace into Flink's message: the first exception of
 * the table API in the chain (its message, without the stack frames), and the
 * line and column it names ("line 2, column 8", "Encountered … at line 1, column 15").
 */
export function flinkError(trace: string): FlinkStatementError {
  const blocks: string[] = [];
  let current: string[] | null = null;
  for (const line of trace.split("\n")) {
    if (/^\s+at /.test(line) || /^\s+\.\.\. \d+ more/.test(line)) {
      if (current) blocks.push(current.join("\n"));
      current = null;
      continue;
    }
    if (/^(Caused by: )?[a-z][\w$]*(\.[\w$]+)+(Exception|Error)(: |$)/.test(line)) {
      if (current) blocks.push(current.join("\n"));
      current = [line];
    } else if (current) current.push(line);
  }
  if (current) blocks.push(current.join("\n"));
  let message: string | null = null;
  for (const block of blocks) {
    const match = TABLE_EXCEPTIONS.exec(block.trim());
    if (match) {
      // The parser lists every token it would have taken: hundreds of lines, nothing a person reads.
      message = match[2]!.replace(/\n\s*Was expecting(?: one of)?:[\s\S]*$/, "").trim();
      break;
    }
  }
  if (!message) {
    const last = blocks.at(-1)?.replace(/^Caused by: /, "") ?? trace.split("\n").find((l) => l.trim()) ?? "Flink refused the statement.";
    message = last.replace(/^[a-z][\w$]*(\.[\w$]+)+: /, "").trim();
  }
  const position = /line (\d+), column (\d+)/.exec(message);
  return new FlinkStatementError(message, position ? Number(position[1]) : null, position ? Number(position[2]) : null, trace);
}
