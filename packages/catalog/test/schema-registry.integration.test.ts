import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSchemaVersion,
  approveSubscription,
  authenticateServiceAccount,
  checkSchemaVersion,
  createServiceAccount,
  hashPassword,
  listSubjects,
  loadActor,
  normalizedSchema,
  lookupSchema,
  proposeSchemaVersion,
  registerProduct,
  registerSchema,
  requestSubscription,
  schemaById,
  subjectConfig,
  subjectVersion,
  submitForReview,
  testCompatibility,
  updateSubjectConfig,
  type Db,
  type RegistryCaller,
} from "../src/index.ts";
import { openTestDatabase, productInput, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

const record = (fields: unknown[]) => JSON.stringify({ type: "record", name: "Probe", namespace: "registry.test", fields });
const v1 = record([{ name: "id", type: "string" }, { name: "grams", type: "long" }]);
const v2 = record([{ name: "id", type: "string" }, { name: "grams", type: "long" }, { name: "note", type: ["null", "string"], default: null }]);
const breaking = record([{ name: "id", type: "string" }, { name: "grams", type: "string" }]);
const PORTAL = "http://portal.test";

let productId = "";
let subject = "";
let reader: RegistryCaller;
let producer: RegistryCaller;
let stranger: RegistryCaller;

async function account(name: string, domainId: string, as: { userId: string }, producerAccount = false) {
  const created = producerAccount
    ? await db.serviceAccount.create({ data: { domainId, name, isProducer: true } })
    : await createServiceAccount(db, as, { domainId, name });
  await db.serviceAccount.update({ where: { id: created.id }, data: { secretHash: await hashPassword(`${name}-secret`) } });
  return authenticateServiceAccount(db, name, `${name}-secret`);
}

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
  const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Registry Probes", schema: { format: "AVRO", definition: v1 } }));
  productId = product.id;
  subject = `${product.topicName}-value`;
  await submitForReview(db, ctx.as.ordersOwner, productId);
  await approveProduct(db, ctx.as.reviewer, productId);
  await db.dataProduct.update({ where: { id: productId }, data: { status: "ACTIVE" } });
  // approveProduct created the orders producer account; give it a password as the worker would.
  const orderProducer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: ctx.orders.id, isProducer: true } });
  await db.serviceAccount.update({ where: { id: orderProducer.id }, data: { secretHash: await hashPassword("producer-secret") } });
  producer = { kind: "serviceAccount", account: await authenticateServiceAccount(db, orderProducer.name, "producer-secret") };

  const readerAccount = await account("payments-probe-reader", ctx.payments.id, ctx.as.paymentsOwner);
  const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId, serviceAccountId: readerAccount.id, purpose: "Read the probes in the registry test" });
  await approveSubscription(db, ctx.as.ordersOwner, sub.id);
  reader = { kind: "serviceAccount", account: readerAccount };
  stranger = { kind: "serviceAccount", account: await account("payments-probe-stranger", ctx.payments.id, ctx.as.paymentsOwner) };
});
afterAll(async () => dispose());

describe("Schema Registry reads", () => {
  it("lists the subjects a caller may read (TopicNameStrategy) and answers versions with Confluent's codes", async () => {
    expect(await listSubjects(db, reader)).toEqual([subject]);
    expect(await listSubjects(db, producer)).toEqual([subject]);
    expect(await listSubjects(db, stranger)).toEqual([]);
    expect(await listSubjects(db, { kind: "user", actor: await loadActor(db, ctx.people.paymentsMember.id) })).toEqual([subject]);

    const latest = await subjectVersion(db, reader, subject, "latest");
    // The registry serves the normalized text (keys sorted, no whitespace), as Confluent serves its canonical string.
    expect(latest).toMatchObject({ subject, version: 1, id: expect.any(Number), schema: normalizedSchema(v1) });
    expect(await subjectVersion(db, reader, subject, "1")).toEqual(latest);
    await expect(subjectVersion(db, reader, subject, "7")).rejects.toMatchObject({ status: 404, errorCode: 40402 });
    await expect(subjectVersion(db, reader, subject, "one")).rejects.toMatchObject({ status: 422, errorCode: 42202 });
    await expect(subjectVersion(db, stranger, subject, "latest")).rejects.toMatchObject({ status: 404, errorCode: 40401 });
    await expect(subjectVersion(db, reader, subject.replace(/-value$/, "-key"), "latest")).rejects.toMatchObject({ errorCode: 40401 });

    expect(await schemaById(db, reader, latest.id)).toEqual({ schema: latest.schema });
    await expect(schemaById(db, stranger, latest.id)).rejects.toMatchObject({ status: 404, errorCode: 40403 });
    expect(await subjectConfig(db, reader, subject)).toEqual({ compatibilityLevel: "BACKWARD" });
  });

  it("finds a schema by its text, whitespace and key order aside", async () => {
    const pretty = JSON.stringify(JSON.parse(v1), null, 4);
    expect(await lookupSchema(db, reader, subject, { schema: pretty })).toMatchObject({ version: 1, subject });
    await expect(lookupSchema(db, reader, subject, { schema: v2 })).rejects.toMatchObject({ errorCode: 40403 });
    await expect(lookupSchema(db, reader, subject, { schema: "{nope" })).rejects.toMatchObject({ status: 422, errorCode: 42201 });
    await expect(lookupSchema(db, reader, subject, { schema: "{}", schemaType: "JSON" })).rejects.toMatchObject({ errorCode: 42201, message: expect.stringMatching(/holds AVRO schemas/) });
  });

  it("authenticates service accounts by their Kafka password, and stops at once when it is rotated", async () => {
    await expect(authenticateServiceAccount(db, "payments-probe-reader", "wrong")).rejects.toMatchObject({ status: 401 });
    await expect(authenticateServiceAccount(db, "nobody", "x")).rejects.toMatchObject({ status: 401 });
    expect(await authenticateServiceAccount(db, "payments-probe-reader", "payments-probe-reader-secret")).toMatchObject({ name: "payments-probe-reader" });
    await db.serviceAccount.update({ where: { name: "payments-probe-reader" }, data: { secretHash: await hashPassword("rotated") } });
    await expect(authenticateServiceAccount(db, "payments-probe-reader", "payments-probe-reader-secret")).rejects.toMatchObject({ status: 401 });
    expect(await authenticateServiceAccount(db, "payments-probe-reader", "rotated")).toMatchObject({ name: "payments-probe-reader" });
  });
});

describe("Schema Registry writes are governed", () => {
  it("returns the approved id, refuses unapproved and breaking schemas, and registers a version once governance approved it", async () => {
    const approvedId = (await subjectVersion(db, producer, subject, "latest")).id;
    expect(await registerSchema(db, producer, subject, { schema: v1 }, PORTAL)).toEqual({ id: approvedId });
    await expect(registerSchema(db, reader, subject, { schema: v1 }, PORTAL)).rejects.toMatchObject({ status: 403, errorCode: 40301 });
    await expect(registerSchema(db, producer, subject, { schema: breaking }, PORTAL)).rejects.toMatchObject({
      status: 409,
      errorCode: 409,
      message: expect.stringContaining("Schema being registered is incompatible with an earlier schema"),
    });
    await expect(registerSchema(db, producer, subject, { schema: v2 }, PORTAL)).rejects.toMatchObject({
      status: 403,
      errorCode: 40301,
      message: expect.stringContaining(`${PORTAL}/products/${productId}/schema`),
    });
    const before = await db.schemaVersion.count({ where: { productId } });

    const proposal = await proposeSchemaVersion(db, ctx.as.ordersOwner, productId, { definition: v2 });
    await expect(registerSchema(db, producer, subject, { schema: v2 }, PORTAL)).rejects.toMatchObject({ errorCode: 40301, message: expect.stringMatching(/version 2 .* waiting for governance review/) });
    expect(await db.schemaVersion.count({ where: { productId } })).toBe(before + 1);
    await approveSchemaVersion(db, ctx.as.reviewer, proposal.id, { fingerprint: proposal.fingerprint ?? "" });
    const registered = await registerSchema(db, producer, subject, { schema: v2 }, PORTAL);
    expect(registered.id).not.toBe(approvedId);
    expect(await subjectVersion(db, reader, subject, "latest")).toMatchObject({ version: 2, id: registered.id });
  });

  it("the compatibility endpoint gives the portal's verdict", async () => {
    const owner = await loadActor(db, ctx.people.ordersOwner.id);
    for (const schema of [breaking, record([{ name: "id", type: "string" }])]) {
      const api = await testCompatibility(db, reader, subject, "latest", { schema });
      const portal = await checkSchemaVersion(db, owner, productId, { definition: schema });
      expect(portal.valid && portal.identicalTo === null && portal.compatible).toBe(api.is_compatible);
    }
    const refused = await testCompatibility(db, reader, subject, null, { schema: breaking });
    expect(refused.is_compatible).toBe(false);
    expect(refused.messages[0]).toMatch(/^\{errorType:'TYPE_MISMATCH', description:'field `grams` changed type from long to string: readers of v3 cannot read data written with v2 under BACKWARD', additionalInfo:'grams'\}$/);
    // Against one version only: v1 reads the new one's data the same way.
    expect((await testCompatibility(db, reader, subject, "1", { schema: breaking })).is_compatible).toBe(false);
    await expect(testCompatibility(db, reader, subject, "9", { schema: v1 })).rejects.toMatchObject({ errorCode: 40402 });
  });

  it("PUT /config confirms the mode in force and refuses a change", async () => {
    expect(await updateSubjectConfig(db, producer, subject, { compatibility: "BACKWARD" }, PORTAL)).toEqual({ compatibility: "BACKWARD" });
    await expect(updateSubjectConfig(db, producer, subject, { compatibility: "NONE" }, PORTAL)).rejects.toMatchObject({ errorCode: 40301 });
    await expect(updateSubjectConfig(db, producer, subject, { compatibility: "SOMETIMES" }, PORTAL)).rejects.toMatchObject({ status: 422, errorCode: 42203 });
  });
});
