// A derived product's new statement (issue 34, life cycle): who may propose
// one (owners of the product's domain and their write-scoped tokens; not
// members, not governance, not other domains), in which state, the inputs'
// subscriptions, the output schema under the product's compatibility mode
// (compatible → a reviewed change on the same product; incompatible → 422
// naming the fields, a new major version needed), four eyes on approval, and
// what approval records (statement and schema versions, lineage, the worker's
// STATEMENT command). Flink's planner is not started here: a planner that
// answers the output columns Flink gives for these statements stands in for
// it (packages/worker's derived-products suite plans the same path with Flink).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { approveChangeRequest, changeDerivedStatementWith, loadActor, outputJsonSchema, productJob, rejectChangeRequest, reviewQueue, type Db, type OutputColumn, type StatementPlanner } from "../src/index.ts";
import { openTestDatabase, seedPeople, activeProduct as activeProductOf } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
/** An input of the payments domain itself (no subscription needed), and one of the orders domain it holds no subscription to. */
let ownInput: { id: string; topicName: string };
let foreignInput: { id: string; topicName: string };

const COLUMNS: OutputColumn[] = [
  { name: "merchant", type: "STRING NOT NULL" },
  { name: "window_start", type: "TIMESTAMP(3) NOT NULL" },
  { name: "window_end", type: "TIMESTAMP(3) NOT NULL" },
  { name: "orders", type: "BIGINT NOT NULL" },
];
const statementOver = (topic: string, extra = "") => `SELECT merchant, window_start, window_end, COUNT(*) AS orders${extra}
FROM TABLE(TUMBLE(TABLE \`${topic}\`, DESCRIPTOR(placedAt), INTERVAL '1' MINUTE))
GROUP BY merchant, window_start, window_end`;

/** Answers these columns as Flink's planner would for the statement; records that it was asked. */
function planner(columns: OutputColumn[]): StatementPlanner & { calls: number } {
  const plan = Object.assign(async () => {
    plan.calls += 1;
    return { columns, plan: "== Optimized Physical Plan ==\nSink(table=[default_catalog.default_database.kappa_derived_output])" };
  }, { calls: 0 });
  return plan;
}

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  ownInput = await activeProduct(ctx.payments.id, ctx.as.paymentsOwner, "Captured Payments");
  foreignInput = await activeProduct(ctx.orders.id, ctx.as.ordersOwner, "Order Events");
});
afterAll(async () => dispose());

/** fixtures.ts's activeProduct with this file's database and reviewer. */
const activeProduct = (domainId: string, owner: { userId: string }, name: string, overrides: Record<string, unknown> = {}) => activeProductOf(db, ctx.as.reviewer, domainId, owner, name, overrides);

/** A derived product over ownInput whose schema v1 is Flink's output of statementOver, its job running as the worker leaves it. */
async function derivedProduct(name: string) {
  const product = await activeProduct(ctx.payments.id, ctx.as.paymentsOwner, name, { classification: "INTERNAL", schema: { format: "JSON_SCHEMA", definition: JSON.stringify(outputJsonSchema(COLUMNS)) } });
  await db.productInput.create({ data: { productId: product.id, inputProductId: ownInput.id } });
  await db.derivedProduct.create({ data: { productId: product.id, statement: statementOver(ownInput.topicName), jobId: "b".repeat(32), jobState: "RUNNING" } });
  return product;
}

const owner = () => loadActor(db, ctx.people.paymentsOwner.id);

describe("changing a derived product's statement", () => {
  it("lets only owners of the product's domain (and their write-scoped tokens) propose one, for a running or paused job, and refuses bad input naming the field", async () => {
    const product = await derivedProduct("Orders per Minute Guarded");
    const next = { statement: statementOver(ownInput.topicName, ", COUNT(DISTINCT merchant) AS merchants"), reason: "Count merchants too." };
    const plan = planner(COLUMNS);
    for (const acting of [ctx.as.ordersOwner, ctx.as.paymentsMember, ctx.as.reviewer, { userId: ctx.people.paymentsOwner.id, token: { id: "t1", name: "ci", scopes: ["read"] } }]) {
      await expect(changeDerivedStatementWith(db, acting, product.id, next, plan)).rejects.toMatchObject({ status: 403, message: "Only owners of the product's domain may change its statement." });
    }
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, "no-such-product", next, plan)).rejects.toMatchObject({ status: 404 });
    // A product that is not derived has no statement.
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, ownInput.id, next, plan)).rejects.toMatchObject({ status: 404 });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: next.statement }, plan)).rejects.toMatchObject({ status: 400, fields: { reason: ["reason is required: say why the statement changes."] } });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { ...next, statement: "  " }, plan)).rejects.toMatchObject({ status: 400, fields: { statement: ["statement is required."] } });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { ...next, domainId: ctx.orders.id }, plan)).rejects.toMatchObject({ status: 400 });
    // The same statement (a trailing semicolon aside) is no new version.
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { ...next, statement: `${statementOver(ownInput.topicName)};` }, plan)).rejects.toMatchObject({ status: 409, code: "STATEMENT_UNCHANGED" });
    // A stopped job (for good), or a paused one without a savepoint to resume from: no new statement. No Flink configured: 503 saying what to set.
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "STOPPED", jobStoppedAt: new Date(), jobStopReason: "The product's input was retired." } });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, next, plan)).rejects.toMatchObject({ status: 409, code: "JOB_NOT_RUNNING", message: expect.stringContaining("the job was stopped: The product's input was retired.") });
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "PAUSED", jobStoppedAt: null, jobStopReason: null, jobPausedAt: new Date() } });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, next, plan)).rejects.toMatchObject({ status: 409, code: "JOB_NOT_RUNNING", message: expect.stringContaining("the job is paused without a savepoint to resume from") });
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "RUNNING", jobPausedAt: null } });
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, next, null)).rejects.toMatchObject({ status: 503, message: expect.stringContaining("FLINK_SQL_GATEWAY_URL") });
    // None of it reached Flink's planner or left a request.
    expect(plan.calls).toBe(0);
    expect(await db.productChangeRequest.count({ where: { productId: product.id } })).toBe(0);
  });

  it("refuses, naming the input, a statement over a product the domain holds no approved subscription to — before Flink plans it", async () => {
    const product = await derivedProduct("Orders per Minute Foreign");
    const plan = planner(COLUMNS);
    const statement = `SELECT o.merchant FROM \`${ownInput.topicName}\` o JOIN \`${foreignInput.topicName}\` f ON o.merchant = f.merchant`;
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement, reason: "Join the orders." }, plan)).rejects.toMatchObject({
      status: 403,
      code: "NO_SUBSCRIPTION",
      message: expect.stringContaining(foreignInput.topicName),
      details: { productId: foreignInput.id, topicName: foreignInput.topicName },
    });
    expect(plan.calls).toBe(0);
  });

  it("refuses an output schema that changed incompatibly under the product's mode with 422 naming the fields and the new major version it needs", async () => {
    const product = await derivedProduct("Orders per Minute Breaking");
    const statement = statementOver(ownInput.topicName).replace("COUNT(*) AS orders", "CAST(COUNT(*) AS STRING) AS orders");
    const refused = changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement, reason: "Orders as text." }, planner(COLUMNS.map((c) => (c.name === "orders" ? { name: "orders", type: "STRING NOT NULL" } : c))));
    await expect(refused).rejects.toMatchObject({
      status: 422,
      code: "INCOMPATIBLE_OUTPUT_SCHEMA",
      message: expect.stringMatching(/^The new statement's output schema changed incompatibly: it is not BACKWARD compatible with v1 \(field orders: property `orders` changed type from integer to string.*\)\. A new major version is needed: declare the statement as a new derived product \(payments\.orders-per-minute-breaking\.v2\)\.$/),
      details: { mode: "BACKWARD", fields: ["orders"], newMajorVersion: { majorVersion: 2, topicName: "payments.orders-per-minute-breaking.v2" } },
    });
    // Dropping a column breaks BACKWARD too (the schema is closed): named as well.
    const dropped = changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: statement.replace("CAST(COUNT(*) AS STRING) AS orders", "MIN(merchant) AS m"), reason: "Fewer columns." }, planner(COLUMNS.filter((c) => c.name !== "orders")));
    await expect(dropped).rejects.toMatchObject({ status: 422, details: { fields: ["orders"] } });
    expect(await db.productChangeRequest.count({ where: { productId: product.id } })).toBe(0);
    expect(await db.schemaVersion.count({ where: { productId: product.id } })).toBe(1);
  });

  it("makes a compatible statement a reviewed change that a governance reviewer other than the requester approves: then statement v2, schema v2, the new lineage and the worker's STATEMENT command", async () => {
    const product = await derivedProduct("Orders per Minute Evolving");
    const statement = statementOver(ownInput.topicName, ", SUM(1) / NULLIF(COUNT(*), 0) AS ratio");
    const token = { userId: ctx.people.paymentsOwner.id, token: { id: "t2", name: "ops", scopes: ["read", "write:payments"] } };
    const wider = [...COLUMNS, { name: "ratio", type: "INT" }];
    const asked = await changeDerivedStatementWith(db, token, product.id, { statement: `${statement};`, reason: "Show the ratio." }, planner(wider));
    expect(asked).toMatchObject({ changeRequest: { status: "REQUESTED" }, statementVersion: 2, schemaVersion: 2, schemaChanged: true, compatibility: { mode: "BACKWARD", checkedVersions: [1] }, inputs: [{ productId: ownInput.id, topicName: ownInput.topicName }] });
    expect(Object.keys((asked.outputSchema as { properties: object }).properties)).toEqual(["merchant", "window_start", "window_end", "orders", "ratio"]);
    // Nothing changed yet: the job runs statement 1; the panel says a new statement waits for review; governance sees it.
    expect(await productJob(db, await owner(), product.id)).toMatchObject({ statementVersion: 1, jobStatementVersion: 1, statementChangeAwaitingReview: { changeRequestId: asked.changeRequest.id, toVersion: 2 }, command: null });
    expect(await db.derivedJobCommand.count({ where: { productId: product.id } })).toBe(0);
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.changes).toContainEqual(expect.objectContaining({ id: asked.changeRequest.id, kind: "DERIVED_STATEMENT", reason: "Show the ratio.", payload: expect.objectContaining({ statement, fromVersion: 1, toVersion: 2, schema: expect.objectContaining({ version: 2, changed: true }) }) }));
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "derivedProduct.statementChangeRequested" } })).toMatchObject({ actorId: ctx.people.paymentsOwner.id, data: { changeRequestId: asked.changeRequest.id, fromVersion: 1, toVersion: 2, schemaVersion: 2, schemaChanged: true } });
    // One new statement under review at a time.
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: statementOver(ownInput.topicName, ", 1 AS one"), reason: "again" }, planner(wider))).rejects.toMatchObject({ status: 409, code: "CHANGE_PENDING" });

    // The owner cannot approve it, nor governance once the job was stopped for good.
    await expect(approveChangeRequest(db, ctx.as.paymentsOwner, asked.changeRequest.id)).rejects.toMatchObject({ status: 403 });
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobStoppedAt: new Date(), jobState: "STOPPED" } });
    await expect(approveChangeRequest(db, ctx.as.reviewer, asked.changeRequest.id)).rejects.toMatchObject({ status: 409, code: "JOB_NOT_RUNNING" });
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobStoppedAt: null, jobState: "RUNNING" } });

    await approveChangeRequest(db, ctx.as.reviewer, asked.changeRequest.id);
    const row = await db.derivedProduct.findUniqueOrThrow({ where: { productId: product.id } });
    expect(row).toMatchObject({ statement, statementVersion: 2, jobId: "b".repeat(32) });
    const schemas = await db.schemaVersion.findMany({ where: { productId: product.id }, orderBy: { version: "asc" } });
    expect(schemas.map((s) => [s.version, s.status])).toEqual([
      [1, "APPROVED"],
      [2, "APPROVED"],
    ]);
    expect(schemas[1]).toMatchObject({ format: "JSON_SCHEMA", proposedById: ctx.people.paymentsOwner.id, decidedById: ctx.people.reviewer.id });
    expect(schemas[1]!.schemaId).not.toBeNull();
    expect(Object.keys((JSON.parse(schemas[1]!.definition) as { properties: object }).properties)).toContain("ratio");
    expect(await db.derivedStatementVersion.findMany({ where: { productId: product.id }, orderBy: { version: "asc" }, select: { version: true, statement: true, schemaVersion: true, changeRequestId: true, approvedById: true } })).toEqual([
      { version: 1, statement: statementOver(ownInput.topicName), schemaVersion: 1, changeRequestId: null, approvedById: null },
      { version: 2, statement, schemaVersion: 2, changeRequestId: asked.changeRequest.id, approvedById: ctx.people.reviewer.id },
    ]);
    const queued = await db.derivedJobCommand.findFirstOrThrow({ where: { productId: product.id } });
    expect(queued).toMatchObject({ kind: "STATEMENT", status: "PENDING", statementVersion: 2, changeRequestId: asked.changeRequest.id, requestedById: ctx.people.paymentsOwner.id, fromJobId: "b".repeat(32) });
    expect(await productJob(db, await owner(), product.id)).toMatchObject({ statementVersion: 2, jobStatementVersion: 1, statementChangeAwaitingReview: null, command: { id: queued.id, kind: "STATEMENT", status: "PENDING", statementVersion: 2 } });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "product.changeApproved" } })).toMatchObject({ actorId: ctx.people.reviewer.id, data: { kind: "DERIVED_STATEMENT", statementVersion: 2, schemaVersion: 2, commandId: queued.id } });
  });

  it("lets the owners change a paused job's statement through the same planning, schema check and review: approved, the job stays paused (no command for the worker) and says which version its resume runs", async () => {
    const product = await derivedProduct("Orders per Minute Paused");
    const pausedAt = new Date();
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "PAUSED", jobPausedAt: pausedAt, jobSavepointPath: "file:///tmp/savepoints/savepoint-bbbbbb-1", jobMetrics: { recordsInPerSecond: 12, recordsOutPerSecond: 3, watermarkLagMs: 900, restarts: 0 } } });
    // While paused, the rates read before the pause are not shown (nothing runs); the restarts are kept.
    expect(await productJob(db, await owner(), product.id)).toMatchObject({ state: "PAUSED", recordsInPerSecond: null, recordsOutPerSecond: null, watermarkLagMs: null, restarts: 0, statementVersionOnResume: null });
    // Incompatible: refused as for a running job.
    const breaking = statementOver(ownInput.topicName).replace("COUNT(*) AS orders", "CAST(COUNT(*) AS STRING) AS orders");
    await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: breaking, reason: "Orders as text." }, planner(COLUMNS.map((c) => (c.name === "orders" ? { name: "orders", type: "STRING NOT NULL" } : c))))).rejects.toMatchObject({ status: 422, code: "INCOMPATIBLE_OUTPUT_SCHEMA" });
    const statement = statementOver(ownInput.topicName, ", COUNT(DISTINCT merchant) AS merchants");
    const plan = planner([...COLUMNS, { name: "merchants", type: "BIGINT" }]);
    const asked = await changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement, reason: "Count merchants too." }, plan);
    expect(plan.calls).toBe(1);
    expect(asked).toMatchObject({ changeRequest: { status: "REQUESTED" }, statementVersion: 2, schemaVersion: 2, schemaChanged: true, jobPaused: true });
    expect(asked.onApproval).toBe(
      "The job is paused: once approved, statement version 2 is recorded and the job stays paused; resuming it runs statement version 2, restoring its savepoint where Flink can map the state to the new statement's operators, otherwise without state from the offsets the job's consumer group committed.",
    );
    // The reviewer sees that the job is paused.
    const queue = await reviewQueue(db, await loadActor(db, ctx.people.reviewer.id));
    expect(queue.changes).toContainEqual(expect.objectContaining({ id: asked.changeRequest.id, kind: "DERIVED_STATEMENT", payload: expect.objectContaining({ statement, jobPaused: true }) }));

    await approveChangeRequest(db, ctx.as.reviewer, asked.changeRequest.id);
    // Recorded as for a running job, but nothing for the worker: the job stays paused with its savepoint.
    expect(await db.derivedProduct.findUniqueOrThrow({ where: { productId: product.id } })).toMatchObject({ statement, statementVersion: 2, jobState: "PAUSED", jobPausedAt: pausedAt, jobSavepointPath: "file:///tmp/savepoints/savepoint-bbbbbb-1" });
    expect(await db.schemaVersion.findFirst({ where: { productId: product.id, version: 2 } })).toMatchObject({ status: "APPROVED" });
    expect(await db.derivedJobCommand.count({ where: { productId: product.id } })).toBe(0);
    expect(await productJob(db, await owner(), product.id)).toMatchObject({ state: "PAUSED", statementVersion: 2, jobStatementVersion: 1, statementVersionOnResume: 2, statementChangeAwaitingReview: null, command: null });
    expect(await db.auditEvent.findFirst({ where: { entityId: product.id, action: "product.changeApproved" } })).toMatchObject({ data: { kind: "DERIVED_STATEMENT", statementVersion: 2, job: "paused: the new statement runs on resume", onApproval: asked.onApproval } });

    // Another one while still paused: from version 2 (the product's statement), its resume runs the latest.
    const third = statementOver(ownInput.topicName, ", COUNT(DISTINCT merchant) AS merchants, 1 AS one");
    const again = await changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: third, reason: "And a one." }, planner([...COLUMNS, { name: "merchants", type: "BIGINT" }, { name: "one", type: "INT" }]));
    expect(again).toMatchObject({ statementVersion: 3, schemaVersion: 3, jobPaused: true });
    await approveChangeRequest(db, ctx.as.reviewer, again.changeRequest.id);
    expect(await productJob(db, await owner(), product.id)).toMatchObject({ state: "PAUSED", statementVersion: 3, jobStatementVersion: 1, statementVersionOnResume: 3 });
    // A running job's change still queues the worker's command: resumed (as the worker leaves it), the next one does.
    await db.derivedProduct.update({ where: { productId: product.id }, data: { jobState: "RUNNING", jobPausedAt: null, jobSavepointPath: null, jobStatementVersion: 3, jobId: "c".repeat(32) } });
    const running = await changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: statementOver(ownInput.topicName, ", COUNT(DISTINCT merchant) AS merchants, 2 AS one"), reason: "Two." }, planner([...COLUMNS, { name: "merchants", type: "BIGINT" }, { name: "one", type: "INT" }]));
    expect(running).toMatchObject({ jobPaused: false, onApproval: expect.stringMatching(/^Once approved, the worker stops the job with a savepoint and starts statement version 4, /) });
  });

  it("keeps the schema version when the output is unchanged; a reviewer who requested it may not approve it; a rejection changes nothing", async () => {
    const product = await derivedProduct("Orders per Minute Filtered");
    const statement = statementOver(ownInput.topicName).replace("GROUP BY", "WHERE merchant <> 'test'\nGROUP BY");
    await db.membership.create({ data: { userId: ctx.people.reviewer.id, domainId: ctx.payments.id, role: "OWNER" } });
    try {
      const asked = await changeDerivedStatementWith(db, ctx.as.reviewer, product.id, { statement, reason: "Leave the test merchant out." }, planner(COLUMNS));
      expect(asked).toMatchObject({ schemaVersion: 1, schemaChanged: false });
      await expect(approveChangeRequest(db, ctx.as.reviewer, asked.changeRequest.id)).rejects.toMatchObject({ status: 403, message: expect.stringContaining("Four-eyes") });
      await rejectChangeRequest(db, ctx.as.reviewer2, asked.changeRequest.id, { reason: "Keep the test merchant for now." });
      expect(await db.derivedProduct.findUniqueOrThrow({ where: { productId: product.id } })).toMatchObject({ statement: statementOver(ownInput.topicName), statementVersion: 1 });
      expect(await db.derivedJobCommand.count({ where: { productId: product.id } })).toBe(0);

      const again = await changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement, reason: "Leave the test merchant out, please." }, planner(COLUMNS));
      await approveChangeRequest(db, ctx.as.reviewer2, again.changeRequest.id);
      expect(await db.schemaVersion.count({ where: { productId: product.id } })).toBe(1);
      expect(await db.derivedStatementVersion.findMany({ where: { productId: product.id }, orderBy: { version: "asc" }, select: { version: true, schemaVersion: true } })).toEqual([
        { version: 1, schemaVersion: 1 },
        { version: 2, schemaVersion: 1 },
      ]);
      // The next one waits for the worker's command to finish.
      await expect(changeDerivedStatementWith(db, ctx.as.paymentsOwner, product.id, { statement: statementOver(ownInput.topicName), reason: "Back." }, planner(COLUMNS))).rejects.toMatchObject({ status: 409, code: "JOB_COMMAND_OPEN" });
    } finally {
      await db.membership.delete({ where: { userId_domainId: { userId: ctx.people.reviewer.id, domainId: ctx.payments.id } } });
    }
  });
});
