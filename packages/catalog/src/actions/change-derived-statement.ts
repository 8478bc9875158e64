import { Prisma } from "@prisma/client";
import { inTransaction, loadActingActor, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import { CHANGE_KINDS, notifyChangeAwaitsReview } from "../changes/change-requests.ts";
import type { Db } from "../db.ts";
import { outputJsonSchema, type OutputColumn } from "../derived/flink-tables.ts";
import { lockDerivedForCommand } from "../derived/job-commands.ts";
import { checkOutputSchema, derivedStatementChangeInput, nextStatementVersion, requireStatementChangeable, statementChangeOutcome, type DerivedStatementPayload } from "../derived/statement-change.ts";
import { CatalogError, ConflictError, NotConfiguredError, NotFoundError } from "../errors.ts";
import { canInDomain, hasGlobal } from "../permissions.ts";
import { normaliseStatement, planDerivedStatement, resolveDerivedInputs, type DerivedInput, type FlinkSettings } from "./validate-derived-statement.ts";

const CLASSIFICATION_ORDER = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"] as const;
const UNPUBLISHED = ["DRAFT", "IN_REVIEW", "REJECTED"];
const PLAN_KEPT = 20_000;

/** Plans a statement over its inputs (Flink's planner through the SQL Gateway: planDerivedStatement). */
export type StatementPlanner = (statement: string, inputs: DerivedInput[]) => Promise<{ columns: OutputColumn[]; plan: string }>;

/**
 * `PUT /api/v1/products/{id}/derived` with `{"statement", "reason"}`: the
 * owners of an ACTIVE derived product's domain (people and their tokens with
 * `write:<domain>`) propose a new statement for its running or paused job. It is
 * planned by Flink as a declaration is (403 naming an input the domain holds
 * no approved subscription to, 422 with Flink's message), its classification
 * floor checked, and its output schema compared with the approved one under
 * the product's compatibility mode: compatible (or unchanged) → a change
 * request DERIVED_STATEMENT that a governance reviewer other than the
 * requester approves; incompatible → 422 INCOMPATIBLE_OUTPUT_SCHEMA naming the
 * fields (a new major version, a new product, is needed). The answer's
 * `onApproval` says what approval does to the job: a running one is stopped
 * with a savepoint and runs the new statement at once; a paused one stays
 * paused, and its resume runs the new statement (`jobPaused: true`).
 */
export async function changeDerivedStatement(db: Db, acting: ActingUser, productId: string, rawInput: unknown, flink: FlinkSettings | null) {
  return changeDerivedStatementWith(db, acting, productId, rawInput, flink ? (statement, inputs) => planDerivedStatement(flink, statement, inputs) : null);
}

/** changeDerivedStatement with the planner given (the catalog's tests plan without a Flink cluster; the worker's suite plans with Flink). */
export async function changeDerivedStatementWith(db: Db, acting: ActingUser, productId: string, rawInput: unknown, planner: StatementPlanner | null) {
  const input = parseInput(derivedStatementChangeInput, rawInput);
  const statement = normaliseStatement(input.statement);
  // Everything Flink is not needed for, first (read-only; checked again under the product's lock below).
  const actor = await loadActingActor(db, acting);
  const product = await db.dataProduct.findUnique({ where: { id: productId } });
  const derived = product ? await db.derivedProduct.findUnique({ where: { productId } }) : null;
  const inDomain = product ? actor.memberships.some((m) => m.domainId === product.domainId) : false;
  if (!product || !derived || (!inDomain && UNPUBLISHED.includes(product.status) && !hasGlobal(actor, "product:review"))) throw new NotFoundError("Derived product", productId);
  if (!canInDomain(actor, "product:update", product.domainId)) throw new CatalogError("FORBIDDEN", 403, "Only owners of the product's domain may change its statement.");
  await requireStatementChangeable(db, product);
  if (statement === derived.statement) throw new ConflictError("This is the product's statement already: nothing changes.", "STATEMENT_UNCHANGED", { statement: ["Identical to the current statement."] });
  const pending = await db.productChangeRequest.findFirst({ where: { productId, kind: CHANGE_KINDS.DERIVED_STATEMENT, status: "REQUESTED" }, select: { id: true } });
  if (pending) throw new ConflictError("A new statement of this product waits for review already.", "CHANGE_PENDING");
  const inputs = await resolveDerivedInputs(db, product.domainId, statement);
  if (!planner) throw new NotConfiguredError("Derived products need Apache Flink: set FLINK_SQL_GATEWAY_URL to the SQL Gateway of a Flink session cluster (npm run flink -w packages/engines starts one; it needs Java 17).");
  const { columns, plan } = await planner(statement, inputs);
  if (inputs.length === 0) {
    throw new CatalogError("STATEMENT_DOES_NOT_PLAN", 422, "The statement reads no data product: name the products it reads by their topic, in backquotes (FROM `orders.order-events.v1`).", undefined, undefined, { line: null, column: null });
  }
  const minimum = CLASSIFICATION_ORDER[Math.max(...inputs.map((i) => CLASSIFICATION_ORDER.indexOf(i.classification)))]!;
  if (CLASSIFICATION_ORDER.indexOf(product.classification) < CLASSIFICATION_ORDER.indexOf(minimum)) {
    const sensitive = inputs.filter((i) => i.classification === minimum).map((i) => i.topicName);
    const message = `The new statement reads ${sensitive.join(", ")} (${minimum}); the product is ${product.classification}. A derived product is classified at least as its most sensitive input: raise its classification first.`;
    throw new CatalogError("CLASSIFICATION_TOO_LOW", 422, message, { statement: [message] });
  }
  const definition = JSON.stringify(outputJsonSchema(columns));

  return inTransaction(db, acting, async (tx, actor) => {
    const { product: locked } = await lockDerivedForCommand(tx, actor, productId, "change the statement of");
    const current = await requireStatementChangeable(tx, locked);
    // Another change approved while Flink planned: this one was planned against an older statement.
    if (current.statement !== derived.statement) throw new ConflictError("The product's statement changed meanwhile; ask again from the current statement.", "STATEMENT_CHANGED");
    const schema = await checkOutputSchema(tx, locked, definition);
    const toVersion = await nextStatementVersion(tx, productId, current.statementVersion);
    const payload: DerivedStatementPayload = {
      statement,
      fromStatement: current.statement,
      fromVersion: current.statementVersion,
      toVersion,
      jobId: current.jobId,
      schema: { version: schema.version, changed: schema.changed, definition: schema.definition, fingerprint: schema.fingerprint, mode: schema.mode, checkedVersions: schema.checkedVersions },
      fieldChanges: schema.fieldChanges,
      inputs: inputs.map((i) => ({ productId: i.productId, topicName: i.topicName })),
      plan: plan.length > PLAN_KEPT ? `${plan.slice(0, PLAN_KEPT)}\n…` : plan,
      ...(current.paused ? { jobPaused: true } : {}),
    };
    try {
      const request = await tx.productChangeRequest.create({ data: { productId, kind: CHANGE_KINDS.DERIVED_STATEMENT, payload: payload as unknown as Prisma.InputJsonObject, reason: input.reason, requestedById: actor.id } });
      await recordAudit(tx, actor, "derivedProduct.statementChangeRequested", "DataProduct", productId, {
        changeRequestId: request.id,
        fromVersion: payload.fromVersion,
        toVersion: payload.toVersion,
        schemaVersion: schema.version,
        schemaChanged: schema.changed,
        statement,
        reason: input.reason,
        jobPaused: current.paused,
      });
      await notifyChangeAwaitsReview(tx, actor, locked, `statement version ${payload.toVersion} of its ${current.paused ? "paused " : ""}Flink job waits for review`, input.reason);
      return {
        changeRequest: { id: request.id, status: request.status },
        statementVersion: payload.toVersion,
        schemaVersion: schema.version,
        schemaChanged: schema.changed,
        outputSchema: JSON.parse(schema.definition) as Record<string, unknown>,
        compatibility: { mode: schema.mode, checkedVersions: schema.checkedVersions },
        fieldChanges: schema.fieldChanges,
        inputs: payload.inputs,
        plan,
        jobPaused: current.paused,
        onApproval: statementChangeOutcome(payload.toVersion, current.paused),
      };
    } catch (error) {
      if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new ConflictError("A new statement of this product waits for review already.", "CHANGE_PENDING");
      throw error;
    }
  });
}
