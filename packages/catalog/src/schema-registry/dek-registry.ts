import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from "node:crypto";
import { Prisma } from "@prisma/client";
import { z } from "zod";
import { recordAudit } from "../audit.ts";
import type { Db, Tx } from "../db.ts";
import { decryptSecret, encryptSecret, generatePassword } from "../secrets.ts";
import type { RegistryCaller } from "./caller.ts";
import { RegistryError } from "./registry-errors.ts";
import { productOfSubject, readableProducts } from "./subjects.ts";

/*
 * The DEK Registry API (issue 29), as `@confluentinc/schemaregistry`'s
 * DekRegistryClient calls it under the registry's base URL, for its field
 * encryption executor (rule type ENCRYPT):
 *
 *   GET  /dek-registry/v1/keks/{name}?deleted=            the KEK
 *   POST /dek-registry/v1/keks                            refused: KEKs are the platform's
 *   POST /dek-registry/v1/keks/{name}/deks[/{subject}]    a new DEK, generated here
 *   GET  /dek-registry/v1/keks/{name}/deks/{subject}/versions/{version}?algorithm=&deleted=
 *
 * One KEK per domain (`kappa-<slug>`), created by the platform the first time
 * a client needs it, and `shared`: the registry generates every DEK and keeps
 * it only wrapped by the KEK. The embedded default wraps with the library's
 * local KMS (`local-kms`: AES-128-GCM under HKDF-SHA256 of a secret), whose
 * secret is random per domain and sealed under KAPPA_SECRETS_KEY — the same
 * wrapping a client with that secret would do, so the format is the library's.
 * A DEK's plaintext `keyMaterial` goes only to principals entitled to decrypt:
 * the domain's producer account and service accounts whose subscription to
 * the product is approved for PII. Everyone else who may read the subject
 * gets the DEK without it; their deserializer then cannot unwrap the key and,
 * with the served rule's read action NONE, hands them the ciphertext. Every
 * DEK created and every key released is audited.
 */

export const KEK_PREFIX = "kappa-";
export const LOCAL_KMS = "local-kms";
export const DEK_ALGORITHMS = ["AES128_GCM", "AES256_GCM", "AES256_SIV"] as const;
export type DekAlgorithm = (typeof DEK_ALGORITHMS)[number];

export function kekNameOf(domainSlug: string): string {
  return `${KEK_PREFIX}${domainSlug}`;
}

// ---------- the library's key formats ----------

/** The local KMS's key-encryption key: HKDF-SHA256 of the secret (zero salt, no info), 16 bytes, as LocalKmsClient derives it. */
function localKmsKey(secret: string): Buffer {
  return Buffer.from(hkdfSync("sha256", Buffer.from(secret, "utf8"), Buffer.alloc(32), Buffer.alloc(0), 16));
}

/** Tink's AES-GCM: a 12-byte IV, the ciphertext and the 16-byte tag. */
function aesGcmSeal(key: Buffer, plaintext: Buffer): Buffer {
  const iv = randomBytes(12);
  const cipher = createCipheriv(key.length === 16 ? "aes-128-gcm" : "aes-256-gcm", key, iv);
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function aesGcmOpen(key: Buffer, sealed: Buffer): Buffer {
  if (sealed.length < 28) throw new Error("ciphertext too short");
  const decipher = createDecipheriv(key.length === 16 ? "aes-128-gcm" : "aes-256-gcm", key, sealed.subarray(0, 12));
  decipher.setAuthTag(sealed.subarray(sealed.length - 16));
  return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]);
}

/** A new DEK as the library's Cryptor makes one: Tink's AesGcmKey (key_value = 3) or AesSivKey (key_value = 2) in protobuf, version 0. */
export function generateDekMaterial(algorithm: DekAlgorithm): Buffer {
  const size = algorithm === "AES128_GCM" ? 16 : algorithm === "AES256_GCM" ? 32 : 64;
  const field = algorithm === "AES256_SIV" ? 0x12 : 0x1a;
  return Buffer.concat([Buffer.from([field, size]), randomBytes(size)]);
}

export function wrapWithLocalKms(secret: string, raw: Buffer): Buffer {
  return aesGcmSeal(localKmsKey(secret), raw);
}

export function unwrapWithLocalKms(secret: string, wrapped: Buffer): Buffer {
  return aesGcmOpen(localKmsKey(secret), wrapped);
}

// ---------- who is who ----------

function auditActor(caller: RegistryCaller): { id: string | null; email: string } {
  return caller.kind === "serviceAccount" ? { id: null, email: `service-account:${caller.account.name}` } : { id: caller.actor.id, email: caller.actor.email };
}

/**
 * Whether the caller may have a DEK's plaintext: the domain's producer account, or a service account subscribed with PII approved.
 * The producer side is exactly who may WRITE the product's topic: the worker grants WRITE on every live topic of a domain
 * to the domain's producer accounts (worker reconcile/entities.ts desiredBindingsFor, grants.ts), and the catalog makes
 * one per domain (approve-product.ts). (A derived product's Flink job account writes its own topic too, through Flink's
 * format rather than the serializer: it gets no key.) A product has no producer account of its own, so a key scoped tighter than the
 * domain would still be writable-over by the same account; per-product keys need per-product producer accounts first.
 */
async function entitledToDecrypt(db: Db | Tx, caller: RegistryCaller, product: { id: string; domainId: string; status: string }): Promise<boolean> {
  if (caller.kind !== "serviceAccount") return false;
  const { account } = caller;
  if (account.isProducer && account.domainId === product.domainId) return true;
  const subscription = await db.subscription.findFirst({
    where: { productId: product.id, serviceAccountId: account.id, status: { in: ["APPROVED", "ACTIVE"] }, piiRequested: true, piiApprovedAt: { not: null } },
    select: { id: true },
  });
  return subscription !== null;
}

// ---------- KEKs ----------

type KekRow = { id: string; domainId: string; name: string; kmsType: string; kmsKeyId: string; sealedSecret: string; createdAt: Date };

function kekBody(kek: KekRow) {
  return { name: kek.name, kmsType: kek.kmsType, kmsKeyId: kek.kmsKeyId, kmsProps: {}, doc: "Created by Kappa Mesh for the domain's field-level encryption.", shared: true, ts: kek.createdAt.getTime(), deleted: false };
}

const NOT_FOUND = (what: string) => new RegistryError("KEY_NOT_FOUND", `Key '${what}' not found.`);
/** What a KEK name and a subject can be at all (domain slugs; topic names + `-value`): anything else is no key, before any query. */
const KEK_NAME = /^kappa-[a-z0-9-]{1,100}$/;
const SUBJECT = /^[A-Za-z0-9._-]{1,249}-value$/;

/** The domain behind a KEK name, if the caller may read any of its products through the registry. */
async function visibleDomainOfKek(db: Db, caller: RegistryCaller, name: string): Promise<{ id: string; slug: string }> {
  if (!KEK_NAME.test(name)) throw NOT_FOUND(name.slice(0, 200));
  const domain = await db.domain.findUnique({ where: { slug: name.slice(KEK_PREFIX.length) }, select: { id: true, slug: true } });
  if (!domain) throw NOT_FOUND(name);
  const visible = await db.dataProduct.findFirst({ where: { AND: [{ domainId: domain.id }, readableProducts(caller, false)] }, select: { id: true } });
  if (!visible) throw NOT_FOUND(name);
  return domain;
}

/** The domain's KEK, created (and audited) the first time anyone needs it; its secret sealed under the platform's key. */
export async function ensureDomainKek(db: Db, domain: { id: string; slug: string }, secretsKey: Buffer, by: { id: string | null; email: string }): Promise<KekRow> {
  const existing = await db.registryKek.findUnique({ where: { domainId: domain.id } });
  if (existing) return existing;
  const name = kekNameOf(domain.slug);
  try {
    return await db.$transaction(async (tx) => {
      const kek = await tx.registryKek.create({
        data: { domainId: domain.id, name, kmsType: LOCAL_KMS, kmsKeyId: `kappa/${domain.slug}`, sealedSecret: encryptSecret(secretsKey, generatePassword(), `kek:${name}`) },
      });
      await recordAudit(tx, by, "registry.kek-created", "Domain", domain.id, { kek: name, kmsType: LOCAL_KMS, shared: true });
      return kek;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") return db.registryKek.findUniqueOrThrow({ where: { domainId: domain.id } });
    throw error;
  }
}

/** GET /dek-registry/v1/keks/{name}: the domain's KEK for a caller who reads any of its products (404 otherwise). */
export async function getKek(db: Db, caller: RegistryCaller, name: string, secretsKey: Buffer) {
  const domain = await visibleDomainOfKek(db, caller, name);
  return kekBody(await ensureDomainKek(db, domain, secretsKey, auditActor(caller)));
}

/** POST /dek-registry/v1/keks: clients never create or replace KEKs. */
export function refuseKekWrite(): never {
  throw new RegistryError("FORBIDDEN", "KEKs are created by the platform, one per domain (kappa-<domain>), shared; clients cannot register or change them.");
}

// ---------- DEKs ----------

const dekRequest = z
  .object({
    subject: z.string({ message: "subject must be text." }).min(1, "subject is required.").max(300, "subject is at most 300 characters."),
    version: z.number({ message: "version must be a number." }).int("version must be a whole number.").min(1, "version is at least 1.").max(2_147_483_647, "version is at most 2147483647.").optional().default(1),
    algorithm: z.enum(DEK_ALGORITHMS, { message: `algorithm is one of ${DEK_ALGORITHMS.join(", ")}.` }).optional().default("AES256_GCM"),
    encryptedKeyMaterial: z.string().optional(),
    deleted: z.boolean().optional(),
  })
  .strict();

type DekRow = { subject: string; version: number; algorithm: string; encryptedKeyMaterial: string; createdAt: Date };

function dekBody(kekName: string, dek: DekRow, keyMaterial: Buffer | null) {
  return {
    kekName,
    subject: dek.subject,
    version: dek.version,
    algorithm: dek.algorithm,
    encryptedKeyMaterial: dek.encryptedKeyMaterial,
    ...(keyMaterial ? { keyMaterial: keyMaterial.toString("base64") } : {}),
    ts: dek.createdAt.getTime(),
    deleted: false,
  };
}

/** The key material for an entitled caller, audited as a key release; null for everyone else. */
async function release(db: Db, caller: RegistryCaller, kek: KekRow, product: { id: string; domainId: string; status: string }, dek: DekRow, secretsKey: Buffer): Promise<Buffer | null> {
  if (!(await entitledToDecrypt(db, caller, product))) return null;
  const secret = decryptSecret(secretsKey, kek.sealedSecret, `kek:${kek.name}`);
  const raw = unwrapWithLocalKms(secret, Buffer.from(dek.encryptedKeyMaterial, "base64"));
  await recordAudit(db, auditActor(caller), "registry.dek-released", "DataProduct", product.id, { kek: kek.name, subject: dek.subject, version: dek.version, algorithm: dek.algorithm });
  return raw;
}

/** The subject's product and the domain's KEK by name; 404 when the caller may not read the subject or the KEK is not the product's domain's. */
async function subjectAndKek(db: Db, caller: RegistryCaller, kekName: string, subject: string, secretsKey: Buffer) {
  if (!KEK_NAME.test(kekName) || !SUBJECT.test(subject)) throw NOT_FOUND(`${kekName.slice(0, 200)}/${subject.slice(0, 300)}`);
  const product = await productOfSubject(db, caller, subject).catch((error: unknown) => {
    if (error instanceof RegistryError && error.status === 404) throw NOT_FOUND(`${kekName}/${subject}`);
    throw error;
  });
  const domain = await db.domain.findUniqueOrThrow({ where: { id: product.domainId }, select: { id: true, slug: true } });
  if (kekNameOf(domain.slug) !== kekName) throw NOT_FOUND(`${kekName}/${subject}`);
  const kek = await ensureDomainKek(db, domain, secretsKey, auditActor(caller));
  return { product, kek };
}

/**
 * POST /dek-registry/v1/keks/{name}/deks[/{subject}]: a new DEK for the
 * subject, generated and wrapped here (the KEK is shared). Only the domain's
 * producer account, for a live product whose owners opted in to encryption;
 * a client's own key material is refused (it would be a key the platform never
 * saw); an existing DEK is 40970, as Confluent answers (the client then reads it).
 */
export async function createDek(db: Db, caller: RegistryCaller, kekName: string, pathSubject: string | null, body: unknown, secretsKey: Buffer) {
  const parsed = dekRequest.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue?.path.join(".") || "body";
    throw new RegistryError("INVALID_KEY", issue?.code === "unrecognized_keys" ? `Unknown field(s) in the DEK request: ${issue.keys.join(", ")}.` : `${field}: ${issue?.message ?? "invalid"}`);
  }
  const input = parsed.data;
  if (pathSubject !== null && pathSubject !== input.subject) throw new RegistryError("INVALID_KEY", `subject: the body names '${input.subject}', the path '${pathSubject}'.`);
  if (input.encryptedKeyMaterial !== undefined) {
    throw new RegistryError("FORBIDDEN", "DEKs are generated by the registry (the KEK is shared): a request with its own encryptedKeyMaterial is refused.");
  }
  // The served rule sets no `encrypt.dek.expiry.days`: one DEK per subject, version 1 (no rotation, no rows to pile up).
  if (input.version !== 1) throw new RegistryError("FORBIDDEN", "DEK rotation is not offered: each subject has one DEK, version 1.");
  const { product, kek } = await subjectAndKek(db, caller, kekName, input.subject, secretsKey);
  if (!(caller.kind === "serviceAccount" && caller.account.isProducer && caller.account.domainId === product.domainId)) {
    throw new RegistryError("FORBIDDEN", `Only the producer account of the domain that owns '${input.subject}' may create its DEKs.`);
  }
  if (!product.encryptPii) throw new RegistryError("FORBIDDEN", `The owners of '${input.subject}' have not turned on field-level encryption: no DEK is issued for it.`);
  if (product.status === "RETIRED") throw new RegistryError("FORBIDDEN", `'${input.subject}' is retired: its keys were destroyed and no new ones are issued.`);
  const raw = generateDekMaterial(input.algorithm);
  const secret = decryptSecret(secretsKey, kek.sealedSecret, `kek:${kek.name}`);
  let dek: DekRow;
  try {
    dek = await db.$transaction(async (tx) => {
      const row = await tx.registryDek.create({
        data: { kekId: kek.id, productId: product.id, subject: input.subject, version: input.version, algorithm: input.algorithm, encryptedKeyMaterial: wrapWithLocalKms(secret, raw).toString("base64") },
      });
      await recordAudit(tx, auditActor(caller), "registry.dek-created", "DataProduct", product.id, { kek: kek.name, subject: input.subject, version: input.version, algorithm: input.algorithm });
      return row;
    });
  } catch (error) {
    if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2002") throw new RegistryError("KEY_EXISTS", `A DEK for '${input.subject}' version ${input.version} (${input.algorithm}) exists already.`);
    throw error;
  }
  await recordAudit(db, auditActor(caller), "registry.dek-released", "DataProduct", product.id, { kek: kek.name, subject: dek.subject, version: dek.version, algorithm: dek.algorithm });
  return dekBody(kek.name, dek, raw);
}

/** GET …/deks/{subject}/versions/{version}?algorithm=: the DEK, with its plaintext only for an entitled caller. */
export async function getDek(db: Db, caller: RegistryCaller, kekName: string, subject: string, rawVersion: string, rawAlgorithm: string | null, secretsKey: Buffer) {
  const algorithm = (rawAlgorithm ?? "AES256_GCM") as DekAlgorithm;
  if (!DEK_ALGORITHMS.includes(algorithm)) throw new RegistryError("INVALID_KEY", `algorithm is one of ${DEK_ALGORITHMS.join(", ")}.`);
  const latest = rawVersion === "latest" || rawVersion === "-1";
  if (!latest && (!/^[1-9][0-9]{0,9}$/.test(rawVersion) || Number(rawVersion) > 2_147_483_647)) throw new RegistryError("INVALID_KEY", `version '${rawVersion}' is not a version: a positive number or latest.`);
  const { product, kek } = await subjectAndKek(db, caller, kekName, subject, secretsKey);
  const dek = await db.registryDek.findFirst({
    where: { kekId: kek.id, subject, algorithm, ...(latest ? {} : { version: Number(rawVersion) }) },
    orderBy: { version: "desc" },
  });
  if (!dek) throw NOT_FOUND(`${kekName}/${subject}/${rawVersion}`);
  return dekBody(kek.name, dek, await release(db, caller, kek, product, dek, secretsKey));
}

/**
 * Crypto-shredding: the product's DEKs are deleted — the only copies of the
 * keys its encrypted fields were written with (the registry keeps them only
 * wrapped, and nowhere else) — so the records left in the log and any remote
 * tier can no longer be decrypted by anyone. Irreversible; audited by the caller.
 */
export async function shredProductDeks(tx: Tx, productId: string): Promise<{ subject: string; version: number; algorithm: string }[]> {
  const deks = await tx.registryDek.findMany({ where: { productId }, select: { subject: true, version: true, algorithm: true } });
  await tx.registryDek.deleteMany({ where: { productId } });
  return deks;
}
