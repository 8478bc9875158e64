import { z } from "zod";
import { loadActingActor, parseInput, type ActingUser } from "../action.ts";
import type { Db, Tx } from "../db.ts";
import { outputJsonSchema, inputTableDdl, outputTableDdl, plainType, quoteIdentifier, type OutputColumn } from "../derived/flink-tables.ts";
import { FlinkStatementError, FlinkUnavailableError, SqlGatewayClient } from "../derived/sql-gateway.ts";
import { CatalogError, NotConfiguredError, NotFoundError } from "../errors.ts";
import { requireDomainPermission } from "../product-access.ts";
import { schemaFields } from "../schema/fields.ts";
import { piiFieldPaths } from "../schema/pii.ts";

/** Where the platform's Flink is: the SQL Gateway (planning and deployment) and the Kafka bootstrap its tables name. */
export interface FlinkSettings {
  /** The SQL Gateway's REST endpoint, e.g. `http://127.0.0.1:8083`. */
  gatewayUrl: string;
  /** The Kafka bootstrap the tables name (validation connects nowhere; the deployed job reads and writes there). */
  bootstrap: string;
  /** Schema Registry URL for Avro inputs (`avro-confluent`). */
  registryUrl?: string;
}

export const derivedStatementInput = z.object({
  domainId: z.string().trim().min(1, "domainId is required.").max(100),
  statement: z.string().trim().min(1, "statement is required.").max(20_000, "statement may be at most 20000 characters."),
});

/** Product states whose topic exists and whose approved schema can be read. */
const READABLE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;
const CLASSIFICATION_ORDER = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"] as const;

/** The view and output table names a validation session uses; a statement cannot name them (they are not products). */
const VIEW = "kappa_derived_statement";
const OUTPUT = "kappa_derived_output";
/** The statement goes into `CREATE TEMPORARY VIEW … AS` on a line of its own: Flink's line numbers are one more than the owner's. */
const VIEW_PREFIX_LINES = 1;

export interface DerivedInput {
  productId: string;
  topicName: string;
  name: string;
  domainId: string;
  format: "AVRO" | "JSON_SCHEMA";
  definition: string;
  classification: (typeof CLASSIFICATION_ORDER)[number];
}

export interface DerivedValidation {
  outputSchema: Record<string, unknown>;
  inputs: { productId: string; topicName: string }[];
  /** Flink's EXPLAIN of the statement writing into the product's topic. */
  plan: string;
  /** The lowest classification the derived product may have: the highest among its inputs. */
  minimumClassification: (typeof CLASSIFICATION_ORDER)[number];
  /** The statement as planned (trimmed, without a trailing semicolon). */
  statement: string;
  /** The output columns and their Flink types, as the planner derived them. */
  columns: OutputColumn[];
}

/** Backquoted identifiers in a statement: the products it reads are named by their topic, quoted (`orders.order-events.v1`). */
export function quotedIdentifiers(statement: string): string[] {
  const names = new Set<string>();
  // Skip string literals ('…'), whose text may hold backticks; an identifier is `…` with `` for a backtick.
  const pattern = /'(?:[^']|'')*'|`((?:[^`]|``)+)`/g;
  for (const match of statement.matchAll(pattern)) if (match[1] !== undefined) names.add(match[1].replace(/``/g, "`"));
  return [...names];
}

export function normaliseStatement(statement: string): string {
  return statement.trim().replace(/;\s*$/, "").trim();
}

/**
 * Resolves the products a statement reads and checks the domain may read each:
 * its own products, or products it holds an approved subscription to (with
 * PII approval when the input carries PII fields). 403 names the first input
 * it may not read.
 */
export async function resolveDerivedInputs(db: Db | Tx, domainId: string, statement: string): Promise<DerivedInput[]> {
  const names = quotedIdentifiers(statement);
  if (names.length === 0) return [];
  const products = await db.dataProduct.findMany({
    where: { topicName: { in: names }, status: { in: [...READABLE] } },
    select: { id: true, name: true, topicName: true, domainId: true, classification: true, schemaVersions: { where: { status: "APPROVED" }, orderBy: { version: "desc" }, take: 1, select: { format: true, definition: true } } },
    orderBy: { topicName: "asc" },
  });
  const inputs: DerivedInput[] = [];
  for (const product of products) {
    const schema = product.schemaVersions[0];
    if (!schema) continue;
    if (product.domainId !== domainId) {
      const subscription = await db.subscription.findFirst({
        where: { productId: product.id, consumingDomainId: domainId, status: { in: ["APPROVED", "ACTIVE"] }, environment: null },
        select: { piiApprovedAt: true },
      });
      if (!subscription) throw new CatalogError("NO_SUBSCRIPTION", 403, `The domain holds no approved subscription to ${product.topicName} (${product.name}); request one before deriving from it.`, undefined, undefined, { productId: product.id, topicName: product.topicName });
      if (piiFieldPaths(schema.format, schema.definition).length > 0 && !subscription.piiApprovedAt) {
        throw new CatalogError("NO_PII_APPROVAL", 403, `${product.topicName} (${product.name}) carries PII fields and the domain's subscription has no PII approval; a derived product reads every field.`, undefined, undefined, { productId: product.id, topicName: product.topicName });
      }
    }
    inputs.push({ productId: product.id, topicName: product.topicName, name: product.name, domainId: product.domainId, format: schema.format, definition: schema.definition, classification: product.classification });
  }
  return inputs;
}

function notPlanned(error: FlinkStatementError, lineOffset: number): CatalogError {
  const line = error.line === null ? null : Math.max(1, error.line - lineOffset);
  // Flink counts the wrapper's line; the owner's statement starts one line later.
  const message = lineOffset === 0 ? error.message : error.message.replace(/line (\d+), column (\d+)/g, (_, l: string, c: string) => `line ${Math.max(1, Number(l) - lineOffset)}, column ${c}`);
  return new CatalogError("STATEMENT_DOES_NOT_PLAN", 422, message, undefined, undefined, { line, column: error.column });
}

/**
 * Plans a derived product's statement with Flink's own planner through the SQL
 * Gateway — a read-only planning call: a fresh session holds temporary tables
 * for the inputs (generated from the catalog), the statement as a temporary
 * view, and the derived product's topic as a sink; DESCRIBE gives the output
 * columns, EXPLAIN the plan. Nothing runs and nothing connects to Kafka; the
 * session is closed at the end. Dynamic table options (`/*+ OPTIONS(…) *\/`)
 * are off, so a statement cannot point a table at another topic or cluster.
 */
export async function planDerivedStatement(flink: FlinkSettings, statement: string, inputs: DerivedInput[], outputTopic = "kappa-derived-validation"): Promise<{ columns: OutputColumn[]; plan: string }> {
  const gateway = new SqlGatewayClient({ url: flink.gatewayUrl });
  let session: string;
  try {
    session = await gateway.openSession({ "table.dynamic-table-options.enabled": "false", "execution.runtime-mode": "streaming" }, "kappa-derived-validation");
  } catch (error) {
    throw unavailable(error);
  }
  try {
    for (const input of inputs) {
      await gateway.execute(session, inputTableDdl({ topicName: input.topicName, format: input.format, fields: schemaFields(input.format, input.definition) }, { bootstrap: flink.bootstrap, registryUrl: flink.registryUrl }));
    }
    try {
      await gateway.execute(session, `CREATE TEMPORARY VIEW ${quoteIdentifier(VIEW)} AS\n${statement}`);
    } catch (error) {
      if (error instanceof FlinkStatementError) throw notPlanned(error, VIEW_PREFIX_LINES);
      throw error;
    }
    const described = await gateway.execute(session, `DESCRIBE ${quoteIdentifier(VIEW)}`);
    const columns: OutputColumn[] = described.rows.map((row) => ({ name: String(row[0]), type: `${plainType(String(row[1]))}${row[2] === false ? " NOT NULL" : ""}` }));
    await gateway.execute(session, outputTableDdl(OUTPUT, outputTopic, columns, { bootstrap: flink.bootstrap }));
    let plan: string;
    try {
      const explained = await gateway.execute(session, `EXPLAIN INSERT INTO ${quoteIdentifier(OUTPUT)} SELECT * FROM ${quoteIdentifier(VIEW)}`);
      const text = explained.rows[0]?.[0];
      plan = typeof text === "string" ? text : "";
    } catch (error) {
      if (error instanceof FlinkStatementError) throw notPlanned(error, 0);
      throw error;
    }
    return { columns, plan };
  } catch (error) {
    if (error instanceof CatalogError || error instanceof FlinkStatementError) throw error;
    throw unavailable(error);
  } finally {
    await gateway.closeSession(session);
  }
}

function unavailable(error: unknown): CatalogError {
  if (error instanceof CatalogError) return error;
  const detail = error instanceof FlinkUnavailableError ? error.message : "The Flink SQL Gateway could not plan the statement.";
  return new CatalogError("FLINK_UNAVAILABLE", 503, detail, undefined, { cause: error });
}

/**
 * `POST /api/v1/derived/validate`: whether a domain's owners may derive a
 * product with this Flink SQL statement, and what it would be — the output
 * schema Flink's planner derives (JSON Schema), the inputs it reads, Flink's
 * plan. 403 naming an input the domain may not read; 422 with Flink's own
 * message, line and column for a statement that does not plan.
 */
export async function validateDerivedStatement(db: Db, acting: ActingUser, rawInput: unknown, flink: FlinkSettings | null): Promise<DerivedValidation> {
  const input = parseInput(derivedStatementInput, rawInput);
  const actor = await loadActingActor(db, acting);
  const domain = await db.domain.findUnique({ where: { id: input.domainId }, select: { id: true } });
  if (!domain) throw new NotFoundError("Domain", input.domainId);
  requireDomainPermission(actor, "product:create", input.domainId, "Only owners of the domain declare its derived products.");
  const statement = normaliseStatement(input.statement);
  const inputs = await resolveDerivedInputs(db, input.domainId, statement);
  if (!flink) throw new NotConfiguredError("Derived products need Apache Flink: set FLINK_SQL_GATEWAY_URL to the SQL Gateway of a Flink session cluster (npm run flink -w packages/engines starts one; it needs Java 17).");
  const { columns, plan } = await planDerivedStatement(flink, statement, inputs);
  if (inputs.length === 0) {
    throw new CatalogError("STATEMENT_DOES_NOT_PLAN", 422, "The statement reads no data product: name the products it reads by their topic, in backquotes (FROM `orders.order-events.v1`).", undefined, undefined, { line: null, column: null });
  }
  const minimumClassification = CLASSIFICATION_ORDER[Math.max(...inputs.map((i) => CLASSIFICATION_ORDER.indexOf(i.classification)))]!;
  return {
    outputSchema: outputJsonSchema(columns),
    inputs: inputs.map((i) => ({ productId: i.productId, topicName: i.topicName })),
    plan,
    minimumClassification,
    statement,
    columns,
  };
}
