import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { AvroDeserializer, AvroSerializer, JsonataExecutor, RuleRegistry, SchemaRegistryClient, SerdeType } from "@confluentinc/schemaregistry";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  latestWithMetadata,
  loadActor,
  lookupSchema,
  productOfSubject,
  productReview,
  publishMajorVersion,
  registerProduct,
  registerSchema,
  RegistryError,
  schemaById,
  subjectConfig,
  subjectVersion,
  submitForReview,
  type Db,
  type RegistryCaller,
} from "../src/index.ts";
import { checkMigrationRules } from "../src/quality/migration-rules.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

/*
 * Issue 29: migration rules of a new major version, run by the real
 * `@confluentinc/schemaregistry` against the catalog's registry functions —
 * the same ones the portal's /api/schema-registry routes call, behind a tiny
 * HTTP server with the endpoints the serializer and deserializer use.
 */

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;
let server: Server;
let baseUrl = "";
let caller: RegistryCaller;

const v1 = JSON.stringify({ type: "record", name: "Order", namespace: "shop", fields: [{ name: "orderId", type: "string" }, { name: "totalCents", type: "long" }] });
const v2 = JSON.stringify({
  type: "record",
  name: "Order",
  namespace: "shop",
  fields: [
    { name: "orderId", type: "string" },
    { name: "total", type: { type: "record", name: "Money", fields: [{ name: "cents", type: "long" }, { name: "currency", type: "string" }] } },
  ],
});
const DOWNGRADE = `{ "orderId": orderId, "totalCents": total.cents }`;
const UPGRADE = `{ "orderId": orderId, "total": { "cents": totalCents, "currency": "EUR" } }`;

let predecessorId = "";
let oldTopic = "";
let newTopic = "";

async function body(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return chunks.length ? JSON.parse(Buffer.concat(chunks).toString("utf8")) : null;
}

/** The endpoints the client library calls here, each answered by the catalog function the portal's route calls. */
async function answer(request: IncomingMessage): Promise<unknown> {
  const url = new URL(request.url ?? "/", "http://registry");
  const parts = url.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  if (parts[0] === "schemas" && parts[1] === "ids" && parts.length === 3) return schemaById(db, caller, Number(parts[2]), url.searchParams.get("subject"));
  if (parts[0] === "subjects" && parts[1]) {
    const subject = parts[1];
    if (parts.length === 2 && request.method === "POST") return lookupSchema(db, caller, subject, await body(request));
    if (parts[2] === "metadata") return latestWithMetadata(db, caller, subject, url.searchParams.getAll("key"), url.searchParams.getAll("value"));
    if (parts[2] === "versions" && parts.length === 3) return (await productOfSubject(db, caller, subject)).schemaVersions.map((v) => v.version);
    if (parts[2] === "versions" && parts[3]) return subjectVersion(db, caller, subject, parts[3]);
  }
  // As the portal answers a path it has no route for (the client then falls back to TopicNameStrategy for /associations).
  throw new RegistryError("SUBJECT_NOT_FOUND", `Not served here: ${request.method} ${url.pathname}`);
}

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Shop Orders", schema: { format: "AVRO", definition: v1 } }));
  predecessorId = product.id;
  oldTopic = product.topicName;
  await submitForReview(db, ctx.as.ordersOwner, product.id);
  await approveProduct(db, ctx.as.reviewer, product.id);
  await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
  caller = { kind: "user", actor: await loadActor(db, ctx.people.ordersOwner.id) };
  server = createServer((request, response) => {
    answer(request).then(
      (result) => {
        response.writeHead(200, { "content-type": "application/vnd.schemaregistry.v1+json" });
        response.end(JSON.stringify(result));
      },
      (error: unknown) => {
        const known = error instanceof RegistryError;
        response.writeHead(known ? error.status : 500, { "content-type": "application/json" });
        response.end(JSON.stringify({ error_code: known ? error.errorCode : 50001, message: (error as Error).message }));
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await dispose?.();
});

async function refusal(migrationRules: unknown) {
  const error = await publishMajorVersion(db, ctx.as.ordersOwner, predecessorId, { definition: v2, migrationRules }).then(
    () => null,
    (e: unknown) => e as { status: number; fields?: Record<string, string[]> },
  );
  expect(error?.status).toBe(400);
  return error?.fields ?? {};
}

describe("migration rules of a new major version (issue 29)", () => {
  it("refuses a DOWNGRADE expression that does not compile, naming the field and where", async () => {
    const fields = await refusal({ downgrade: `{ "orderId": orderId, "totalCents": total.cents ` });
    expect(Object.keys(fields)).toEqual(["migrationRules.downgrade"]);
    expect(fields["migrationRules.downgrade"]?.[0]).toMatch(/^Does not compile at character \d+: /);
  });

  it("refuses a DOWNGRADE whose result on a v2 record is not a v1 record, and an UPGRADE that fails the other way", async () => {
    expect((await refusal({ downgrade: `{ "orderId": orderId }` }))["migrationRules.downgrade"]?.[0]).toMatch(/does not give a record of the v1 schema \(wrong or missing: totalCents\)/);
    expect((await refusal({ downgrade: DOWNGRADE, upgrade: `{ "orderId": orderId, "total": totalCents }` }))["migrationRules.upgrade"]?.[0]).toMatch(/not give a record of the v2 schema/);
    expect(Object.keys(await refusal({ downgrade: "x".repeat(4001) }))).toEqual(["migrationRules.downgrade"]);
    // One that never ends (consumers would run it on every record): refused, said so.
    expect((await refusal({ downgrade: "( $f := function($x) { $f($x) + 1 }; $f(1) )" }))["migrationRules.downgrade"]?.[0]).toMatch(/^Does not terminate: on a record of the v2 schema it nests deeper than/);
    expect(await db.dataProduct.count({ where: { predecessorId } })).toBe(0);
  });

  it("does not hold against a rule what the sample's random values cause: a number cast from random text fails on the sample, not on real records", async () => {
    const schemas = { format: "AVRO" as const, previous: v1, next: v2, previousMajor: 1, nextMajor: 2 };
    // $number of a random string throws on the sample: accepted (the shape is checked only when it evaluates).
    await expect(checkMigrationRules({ downgrade: `{ "orderId": orderId, "totalCents": $number(total.currency) }` }, schemas)).resolves.toMatchObject({ downgrade: expect.any(String) });
    // A shape that is wrong whatever the values: refused.
    await expect(checkMigrationRules({ downgrade: `{ "orderId": orderId }` }, schemas)).rejects.toMatchObject({ status: 400 });
  });

  it("a consumer of v1 reads a record of the v2 topic in the v1 shape with useLatestWithMetadata major_version 1", async () => {
    const next = await publishMajorVersion(db, ctx.as.ordersOwner, predecessorId, { definition: v2, migrationRules: { downgrade: DOWNGRADE, upgrade: UPGRADE }, reason: "Money gets a currency." });
    newTopic = next.topicName;
    expect(newTopic).toBe(oldTopic.replace(/\.v1$/, ".v2"));
    // Governance reviews the rules with the new version.
    expect((await productReview(db, await loadActor(db, ctx.people.reviewer.id), next.id)).migrationRules).toEqual({ downgrade: DOWNGRADE, upgrade: UPGRADE });
    await approveProduct(db, ctx.as.reviewer, next.id);
    const subject = `${newTopic}-value`;

    // The subject: v1's schema first (major_version 1), then v2's with the migration rules; compatibility per major version.
    expect((await productOfSubject(db, caller, subject)).schemaVersions.map((v) => v.version)).toEqual([1, 2]);
    expect(await subjectConfig(db, caller, subject)).toEqual({ compatibilityLevel: "BACKWARD", compatibilityGroup: "major_version" });
    const first = await subjectVersion(db, caller, subject, "1");
    const latest = await subjectVersion(db, caller, subject, "latest");
    expect([first.metadata.properties.major_version, latest.metadata.properties.major_version]).toEqual(["1", "2"]);
    expect(first.id).toBe((await subjectVersion(db, caller, `${oldTopic}-value`, "1")).id);
    expect(first.ruleSet.migrationRules).toEqual([]);
    expect(latest.ruleSet.migrationRules.map((r) => [r.name, r.kind, r.type, r.mode, r.expr])).toEqual([
      ["downgrade-to-v1", "TRANSFORM", "JSONATA", "DOWNGRADE", DOWNGRADE],
      ["upgrade-from-v1", "TRANSFORM", "JSONATA", "UPGRADE", UPGRADE],
    ]);
    // The new topic takes v2 records only: the v1 schema is there to read by, not to register.
    await expect(registerSchema(db, caller, subject, { schema: v1 }, "http://portal.test")).rejects.toMatchObject({ status: 409 });

    const client = () => new SchemaRegistryClient({ baseURLs: [baseUrl] });
    const rules = new RuleRegistry();
    rules.registerExecutor(new JsonataExecutor());
    const bytes = await new AvroSerializer(client(), SerdeType.VALUE, { useLatestVersion: true, autoRegisterSchemas: false }, rules).serialize(newTopic, { orderId: "o-1", total: { cents: 1250, currency: "EUR" } });

    const oldConsumer = new AvroDeserializer(client(), SerdeType.VALUE, { useLatestWithMetadata: { major_version: "1" } }, rules);
    expect(await oldConsumer.deserialize(newTopic, bytes)).toEqual({ orderId: "o-1", totalCents: 1250 });
    // A consumer of v2 gets the record as written.
    expect(JSON.parse(JSON.stringify(await new AvroDeserializer(client(), SerdeType.VALUE, {}, rules).deserialize(newTopic, bytes)))).toEqual({ orderId: "o-1", total: { cents: 1250, currency: "EUR" } });
  });
});
