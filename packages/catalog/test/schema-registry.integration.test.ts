import { createDecipheriv, createCipheriv, randomBytes } from "node:crypto";
import avsc from "avsc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  approveProduct,
  approveSchemaVersion,
  approveSubscription,
  approveSubscriptionPii,
  approveChangeRequest,
  getProduct,
  requestKeyErasure,
  createDek,
  deprecateProduct,
  getDek,
  getKek,
  productRetirement,
  refuseKekWrite,
  retireProduct,
  revokeSubscription,
  setQualityRules,
  authenticateServiceAccount,
  checkSchemaVersion,
  createServiceAccount,
  hashPassword,
  listSubjects,
  loadActor,
  readDeadLetters,
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
import { openTestDatabase, productInput, recordsSource, seedPeople } from "./fixtures.ts";

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
    expect(await subjectConfig(db, reader, subject)).toEqual({ compatibilityLevel: "BACKWARD", compatibilityGroup: "major_version" });
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

/** A field value sealed as the executor's AES256_GCM does: 12-byte IV, ciphertext, tag (the DEK's Tink header is two bytes). */
const seal = (dek: string, text: string) => {
  const raw = Buffer.from(dek, "base64").subarray(2);
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", raw, iv);
  return Buffer.concat([iv, cipher.update(text, "utf8"), cipher.final(), cipher.getAuthTag()]);
};

describe("DEK Registry (field-level encryption, issue 29)", () => {
  const key = Buffer.alloc(32, 9);
  const piiSchema = JSON.stringify({ type: "record", name: "Customer", namespace: "registry.test", fields: [{ name: "id", type: "string" }, { name: "email", type: "string", pii: true }] });

  it("the owners opt in (refused without a PII field); the ENCRYPT rule is served; keys go to the producer and PII-approved subscriptions only; clients cannot write keys; retirement destroys them", async () => {
    // A schema without PII has nothing to encrypt.
    await expect(setQualityRules(db, ctx.as.ordersOwner, productId, { rules: [], encryptPii: true, reason: "Encrypt." })).rejects.toMatchObject({ status: 400, fields: { encryptPii: [expect.stringMatching(/"pii": true/)] } });

    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Registry Customers", classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: piiSchema } }));
    // A draft takes the opt-in at once (its own review covers it).
    expect(await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [], encryptPii: true })).toMatchObject({ applied: true, encryptPii: true });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const customers = `${product.topicName}-value`;
    const served = await subjectVersion(db, producer, customers, "latest");
    expect(served.metadata.tags).toEqual({ "registry.test.Customer.email": ["PII"] });
    expect(served.ruleSet.domainRules).toEqual([
      expect.objectContaining({ type: "ENCRYPT", kind: "TRANSFORM", mode: "WRITEREAD", tags: ["PII"], onFailure: "ERROR,NONE", params: expect.objectContaining({ "encrypt.kek.name": "kappa-orders" }) }),
    ]);
    // The deserializer's lookup of the writer's id with its subject carries the same contract.
    expect(await schemaById(db, producer, served.id, customers)).toMatchObject({ ruleSet: served.ruleSet, metadata: served.metadata });

    const subscriber = async (name: string, pii: boolean): Promise<RegistryCaller> => {
      const acc = await account(name, ctx.payments.id, ctx.as.paymentsOwner);
      const sub = await requestSubscription(db, ctx.as.paymentsOwner, { productId: product.id, serviceAccountId: acc.id, purpose: "Invoice the customers", ...(pii ? { piiNeeded: true, piiJustification: "Invoices carry the customer's e-mail." } : {}) });
      await approveSubscription(db, ctx.as.ordersOwner, sub.id);
      if (pii) await approveSubscriptionPii(db, ctx.as.reviewer, sub.id);
      return { kind: "serviceAccount", account: acc };
    };
    const piiReader = await subscriber("payments-dek-pii", true);
    const plainReader = await subscriber("payments-dek-plain", false);
    const person: RegistryCaller = { kind: "user", actor: await loadActor(db, ctx.people.ordersOwner.id) };

    // KEKs: the platform's, one per domain, visible to who reads one of its products; never written by a client.
    expect(await getKek(db, plainReader, "kappa-orders", key)).toMatchObject({ name: "kappa-orders", kmsType: "local-kms", kmsKeyId: "kappa/orders", shared: true });
    expect(Object.keys(await getKek(db, producer, "kappa-orders", key))).not.toContain("sealedSecret");
    await expect(getKek(db, stranger, "kappa-orders", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    await expect(getKek(db, producer, "kappa-payments", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    // A name or subject that cannot exist (a NUL, which PostgreSQL cannot even compare) is no key, never a 500.
    await expect(getKek(db, producer, "kappa-ord\u0000ers", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    await expect(getDek(db, producer, "kappa-orders", "orders.x\u0000-value", "1", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    expect(() => refuseKekWrite()).toThrow(expect.objectContaining({ status: 403, errorCode: 40301 }));

    // DEKs: created by the registry for the producer account only; a client's own key material is refused.
    const request = { subject: customers, version: 1, algorithm: "AES256_GCM" };
    await expect(createDek(db, piiReader, "kappa-orders", customers, request, key)).rejects.toMatchObject({ status: 403 });
    await expect(createDek(db, person, "kappa-orders", customers, request, key)).rejects.toMatchObject({ status: 403 });
    await expect(createDek(db, producer, "kappa-orders", customers, { ...request, encryptedKeyMaterial: "AAAA" }, key)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/generated by the registry/) });
    await expect(createDek(db, producer, "kappa-orders", customers, { ...request, algorithm: "ROT13" }, key)).rejects.toMatchObject({ status: 422, errorCode: 42271 });
    await expect(createDek(db, producer, "kappa-orders", subject, { ...request, subject }, key)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/not turned on/) });
    const created = await createDek(db, producer, "kappa-orders", customers, request, key);
    expect(created).toMatchObject({ kekName: "kappa-orders", subject: customers, version: 1, algorithm: "AES256_GCM", encryptedKeyMaterial: expect.any(String), keyMaterial: expect.any(String) });
    // Tink's AesGcmKey with a 32-byte key: what the client's Cryptor reads.
    expect(Buffer.from(created.keyMaterial ?? "", "base64").subarray(0, 2)).toEqual(Buffer.from([0x1a, 32]));
    await expect(createDek(db, producer, "kappa-orders", customers, request, key)).rejects.toMatchObject({ status: 409, errorCode: 40970 });
    await expect(createDek(db, producer, "kappa-orders", customers, { ...request, version: 2 }, key)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/rotation/) });

    // The plaintext for the producer and the PII-approved subscription; without for everyone else who may read the subject.
    expect((await getDek(db, producer, "kappa-orders", customers, "1", "AES256_GCM", key)).keyMaterial).toBe(created.keyMaterial);
    expect((await getDek(db, piiReader, "kappa-orders", customers, "latest", "AES256_GCM", key)).keyMaterial).toBe(created.keyMaterial);
    const withheld = await getDek(db, plainReader, "kappa-orders", customers, "1", "AES256_GCM", key);
    expect(withheld).toMatchObject({ encryptedKeyMaterial: created.encryptedKeyMaterial });
    expect(withheld).not.toHaveProperty("keyMaterial");
    expect(await getDek(db, person, "kappa-orders", customers, "1", "AES256_GCM", key)).not.toHaveProperty("keyMaterial");
    await expect(getDek(db, stranger, "kappa-orders", customers, "1", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    await expect(getDek(db, producer, "kappa-orders", customers, "2", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    const events = await db.auditEvent.findMany({ where: { entityId: product.id, action: { startsWith: "registry." } } });
    expect(events.filter((e) => e.action === "registry.dek-created")).toHaveLength(1);
    // Released: on creation to the producer, then to the producer and the PII reader — not to the others.
    expect(events.filter((e) => e.action === "registry.dek-released").map((e) => e.actorEmail).sort()).toEqual(["service-account:payments-dek-pii", producerName(), producerName()].sort());

    // Crypto-shredding: retiring destroys the DEKs; said before, audited, and nobody gets the key afterwards.
    for (const sub of await db.subscription.findMany({ where: { productId: product.id } })) await revokeSubscription(db, ctx.as.ordersOwner, sub.id, { reason: "The product retires." });
    await deprecateProduct(db, ctx.as.ordersOwner, product.id, { reason: "Replaced.", sunsetAt: new Date(Date.now() + 90 * 86_400_000).toISOString() });
    expect(await productRetirement(db, await loadActor(db, ctx.people.ordersOwner.id), product.id)).toMatchObject({ encryptionKeys: 1 });
    await retireProduct(db, ctx.as.ordersOwner, product.id, { reason: "Nobody reads it." });
    await expect(getDek(db, producer, "kappa-orders", customers, "1", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    await expect(createDek(db, producer, "kappa-orders", customers, request, key)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/retired/) });
    expect(await db.registryDek.count({ where: { productId: product.id } })).toBe(0);
    expect(await productRetirement(db, await loadActor(db, ctx.people.ordersOwner.id), product.id)).toMatchObject({ encryptionKeys: 0, retirement: { keysDestroyed: 1 } });
  });
});

describe("an owner's erasure request (crypto-shredding without retiring, issue 29)", () => {
  const key = Buffer.alloc(32, 9);
  const piiSchema = JSON.stringify({ type: "record", name: "Erasable", namespace: "registry.test", fields: [{ name: "id", type: "string" }, { name: "email", type: "string", pii: true }] });
  const open = (dek: string, sealed: Buffer) => {
    const decipher = createDecipheriv("aes-256-gcm", Buffer.from(dek, "base64").subarray(2), sealed.subarray(0, 12));
    decipher.setAuthTag(sealed.subarray(sealed.length - 16));
    return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString("utf8");
  };

  it("is reviewed by governance with four eyes, audited, deletes the DEKs on approval; the next write gets a new key and old records stay unreadable", async () => {
    // An owner of orders who is a governance reviewer too: the four-eyes rule, not the role, must stop them approving their own request.
    const ownerReviewer = await db.user.create({ data: { email: "owner-reviewer@orders.test", name: "Owner Reviewer", globalRole: "GOVERNANCE" } });
    await db.membership.create({ data: { userId: ownerReviewer.id, domainId: ctx.orders.id, role: "OWNER" } });
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Registry Erasable", classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: piiSchema } }));
    await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [], encryptPii: true });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const subjectName = `${product.topicName}-value`;
    const request = { subject: subjectName, version: 1, algorithm: "AES256_GCM" };
    const erase = { reason: "Erasure obligation: customer asked for deletion of their data.", irreversible: true };

    // Nothing encrypted yet: nothing to destroy.
    await expect(requestKeyErasure(db, ctx.as.ordersOwner, product.id, erase)).rejects.toMatchObject({ status: 400, message: expect.stringMatching(/no encryption keys/) });
    const old = await createDek(db, producer, "kappa-orders", subjectName, request, key);
    const written = seal(old.keyMaterial ?? "", "alice@example.com");
    expect(open(old.keyMaterial ?? "", written)).toBe("alice@example.com");

    // Only the product's owners ask; the irreversibility is confirmed explicitly; a reason is required.
    await expect(requestKeyErasure(db, ctx.as.paymentsOwner, product.id, erase)).rejects.toMatchObject({ status: 403 });
    await expect(requestKeyErasure(db, ctx.as.reviewer, product.id, erase)).rejects.toMatchObject({ status: 403 });
    await expect(requestKeyErasure(db, ctx.as.ordersOwner, product.id, { reason: erase.reason })).rejects.toMatchObject({ status: 400, fields: { irreversible: [expect.stringMatching(/irreversible/)] } });
    await expect(requestKeyErasure(db, ctx.as.ordersOwner, product.id, { irreversible: true })).rejects.toMatchObject({ status: 400, fields: { reason: [expect.any(String)] } });
    const requested = await requestKeyErasure(db, { userId: ownerReviewer.id }, product.id, erase);
    expect(requested).toMatchObject({ kind: "KEY_ERASURE", status: "REQUESTED", payload: { keys: 1, subjects: [subjectName] } });
    await expect(requestKeyErasure(db, ctx.as.ordersOwner, product.id, erase)).rejects.toMatchObject({ status: 409, code: "CHANGE_PENDING" });
    // Requested, not done: the key is still there until governance approves.
    expect((await getDek(db, producer, "kappa-orders", subjectName, "1", "AES256_GCM", key)).keyMaterial).toBe(old.keyMaterial);
    const ownerView = await getProduct(db, await loadActor(db, ctx.people.ordersOwner.id), product.id);
    expect(ownerView.encryptionKeys).toBe(1);
    expect((await getProduct(db, await loadActor(db, ctx.people.paymentsMember.id), product.id)).encryptionKeys).toBeNull();

    // Four eyes: the requester cannot approve, although a reviewer.
    await expect(approveChangeRequest(db, { userId: ownerReviewer.id }, requested.id)).rejects.toMatchObject({ status: 403, message: expect.stringMatching(/Four-eyes/) });
    await expect(approveChangeRequest(db, ctx.as.ordersOwner, requested.id)).rejects.toMatchObject({ status: 403 });
    await approveChangeRequest(db, ctx.as.reviewer, requested.id);
    expect(await db.registryDek.count({ where: { productId: product.id } })).toBe(0);
    await expect(getDek(db, producer, "kappa-orders", subjectName, "1", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    await expect(getDek(db, producer, "kappa-orders", subjectName, "latest", "AES256_GCM", key)).rejects.toMatchObject({ status: 404, errorCode: 40470 });
    const audit = await db.auditEvent.findMany({ where: { entityId: product.id, action: { in: ["product.keyErasureRequested", "product.changeApproved", "product.keys-destroyed"] } } });
    const event = (action: string) => audit.filter((e) => e.action === action);
    expect(audit).toHaveLength(3);
    expect(event("product.keyErasureRequested")[0]).toMatchObject({ actorEmail: "owner-reviewer@orders.test", data: { keys: 1, reason: erase.reason, changeRequestId: requested.id } });
    expect(event("product.keys-destroyed")[0]).toMatchObject({ actorEmail: "reviewer@gov.test", data: { trigger: "erasure-request", changeRequestId: requested.id, keys: 1, subjects: subjectName } });
    expect(event("product.changeApproved")[0]).toMatchObject({ actorEmail: "reviewer@gov.test", data: { kind: "KEY_ERASURE", keysDestroyed: 1 } });

    // The product lives on: the serializer finds no DEK and asks for one; it is a new key, and the old records stay unreadable with it.
    expect((await db.dataProduct.findUniqueOrThrow({ where: { id: product.id } })).status).toBe("ACTIVE");
    const fresh = await createDek(db, producer, "kappa-orders", subjectName, request, key);
    expect(fresh).toMatchObject({ subject: subjectName, version: 1, keyMaterial: expect.any(String) });
    expect(fresh.keyMaterial).not.toBe(old.keyMaterial);
    expect(fresh.encryptedKeyMaterial).not.toBe(old.encryptedKeyMaterial);
    expect(() => open(fresh.keyMaterial ?? "", written)).toThrow(/authenticate/);
    expect(open(fresh.keyMaterial ?? "", seal(fresh.keyMaterial ?? "", "bob@example.com"))).toBe("bob@example.com");
  });
});

function producerName(): string {
  return producer.kind === "serviceAccount" ? `service-account:${producer.account.name}` : "";
}

describe("the DLQ panel's encrypted fields (issue 29)", () => {
  const key = Buffer.alloc(32, 9);
  const schema = JSON.stringify({ type: "record", name: "DeadCustomer", namespace: "registry.test", fields: [{ name: "id", type: "string" }, { name: "email", type: "string", pii: true }, { name: "totalCents", type: "long" }] });

  it("shows a dead letter's encrypted fields decrypted to the owners with the product's DEK, counted in the audit; without the secrets key, as ciphertext and said so", async () => {
    const product = await registerProduct(db, ctx.as.ordersOwner, productInput(ctx.orders.id, { name: "Registry Dead Customers", classification: "CONFIDENTIAL", schema: { format: "AVRO", definition: schema } }));
    const rule = { name: "non-negative-total", description: "A total is never below zero.", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "DLQ" };
    await setQualityRules(db, ctx.as.ordersOwner, product.id, { rules: [rule], encryptPii: true });
    await submitForReview(db, ctx.as.ordersOwner, product.id);
    await approveProduct(db, ctx.as.reviewer, product.id);
    await db.dataProduct.update({ where: { id: product.id }, data: { status: "ACTIVE" } });
    const subjectName = `${product.topicName}-value`;
    const served = await subjectVersion(db, producer, subjectName, "latest");
    const dek = await createDek(db, producer, "kappa-orders", subjectName, { subject: subjectName, version: 1, algorithm: "AES256_GCM" }, key);
    // As the demo's DLQ action writes it: serialized in Confluent's wire format, the PII field encrypted.
    const header = Buffer.alloc(5);
    header.writeInt32BE(served.id, 1);
    const value = Buffer.concat([header, avsc.Type.forSchema(JSON.parse(schema) as avsc.Schema).toBuffer({ id: "c-1", email: seal(dek.keyMaterial ?? "", "alice@example.com").toString("base64"), totalCents: -5 })]);
    const source = recordsSource([{ partition: 0, offset: 0n, timestamp: BigInt(Date.now()), timestampType: "CreateTime", key: Buffer.from("c-1"), value, headers: [{ key: "__rule.name", value: Buffer.from("non-negative-total") }] }]);
    const owner = await loadActor(db, ctx.people.ordersOwner.id);

    const page = await readDeadLetters(db, owner, product.id, source, { ratePerMinute: 1_000, secretsKey: key });
    expect(page.records.map((r) => [r.rule, r.value.encoding, r.value.value])).toEqual([["non-negative-total", "avro", { id: "c-1", email: "alice@example.com", totalCents: -5 }]]);
    expect(page.records[0]?.value.note).toContain("Encrypted in the log: email — decrypted for you (audited).");
    const audit = await db.auditEvent.findFirstOrThrow({ where: { entityId: product.id, action: "product.dead-letters-read" }, orderBy: { at: "desc" } });
    expect(audit.data).toMatchObject({ records: 1, decryptedFields: 1 });

    const sealed = await readDeadLetters(db, owner, product.id, source, { ratePerMinute: 1_000 });
    expect((sealed.records[0]?.value.value as { email: string }).email).not.toBe("alice@example.com");
    expect(sealed.records[0]?.value.note).toContain("no key decrypts it");
  });
});
