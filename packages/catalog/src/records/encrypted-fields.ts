import { createDecipheriv } from "node:crypto";
import type { Db } from "../db.ts";
import { unwrapWithLocalKms } from "../schema-registry/dek-registry.ts";
import { decryptSecret } from "../secrets.ts";
import type { DecodedValue } from "./decode-value.ts";
import type { Json } from "./mask.ts";
import type { RecordViewer } from "./viewer.ts";

/*
 * Fields the producer's serializer encrypted (issue 29: the ENCRYPT rule on
 * fields tagged PII) arrive in the message browser as base64 ciphertext. The
 * browser and the DLQ panel say so for every viewer, and decrypt them on the server only for
 * a viewer entitled to PII (owners, PII-approved subscribers), with the
 * product's DEKs from the DEK Registry — counted in the page's audit event.
 * Once the product's DEKs are destroyed (retirement) nobody gets the clear
 * value here either.
 */

/** The raw AES-GCM keys of the product's DEKs (Tink's AesGcmKey: a 2-byte header, then the key), or [] when it has none. */
export async function productFieldKeys(db: Db, productId: string, secretsKey: Buffer): Promise<Buffer[]> {
  const deks = await db.registryDek.findMany({ where: { productId, algorithm: { in: ["AES256_GCM", "AES128_GCM"] } }, orderBy: { version: "desc" } });
  if (deks.length === 0) return [];
  const keks = await db.registryKek.findMany({ where: { id: { in: [...new Set(deks.map((d) => d.kekId))] } } });
  const keys: Buffer[] = [];
  for (const dek of deks) {
    const kek = keks.find((k) => k.id === dek.kekId);
    if (!kek) continue;
    const raw = unwrapWithLocalKms(decryptSecret(secretsKey, kek.sealedSecret, `kek:${kek.name}`), Buffer.from(dek.encryptedKeyMaterial, "base64"));
    keys.push(raw.subarray(2));
  }
  return keys;
}

/** Base64 of at least an IV and a tag: what the serializer writes for an encrypted text field. */
function looksEncrypted(text: string): boolean {
  return text.length >= 40 && text.length % 4 === 0 && /^[A-Za-z0-9+/]+={0,2}$/.test(text);
}

function tryDecrypt(keys: readonly Buffer[], text: string): string | null {
  const sealed = Buffer.from(text, "base64");
  for (const key of keys) {
    try {
      const decipher = createDecipheriv(key.length === 16 ? "aes-128-gcm" : "aes-256-gcm", key, sealed.subarray(0, 12));
      decipher.setAuthTag(sealed.subarray(sealed.length - 16));
      return Buffer.concat([decipher.update(sealed.subarray(12, sealed.length - 16)), decipher.final()]).toString("utf8");
    } catch {
      // another key, or not ours
    }
  }
  return null;
}

/**
 * The encrypted fields of a decoded value (dotted paths through records;
 * fields inside arrays and maps are not followed): each text that decrypts
 * with one of `keys` is replaced by its clear value in place; one that looks
 * like ciphertext but decrypts with none is left as it is and reported.
 */
export function revealEncrypted(value: Json, paths: readonly string[], keys: readonly Buffer[]): { decrypted: string[]; undecryptable: string[] } {
  const decrypted: string[] = [];
  const undecryptable: string[] = [];
  for (const path of paths) {
    if (/[[\]{}]/.test(path)) continue;
    const parts = path.split(".");
    let holder: Json = value;
    for (const part of parts.slice(0, -1)) holder = holder !== null && typeof holder === "object" && !Array.isArray(holder) ? (holder[part] ?? null) : null;
    const last = parts[parts.length - 1] ?? "";
    if (holder === null || typeof holder !== "object" || Array.isArray(holder)) continue;
    const field = holder[last];
    if (typeof field !== "string" || !looksEncrypted(field)) continue;
    const clear = tryDecrypt(keys, field);
    if (clear === null) {
      undecryptable.push(path);
    } else {
      holder[last] = clear;
      decrypted.push(path);
    }
  }
  return { decrypted, undecryptable };
}

/**
 * The encrypted fields of a page of records as one viewer sees them: every viewer is told which fields the log holds
 * encrypted; a viewer entitled to PII gets them decrypted with the product's DEKs (`decryptedFields` counts them for
 * the page's audit event), and is told of a field no key opens (destroyed keys).
 */
export async function encryptedFieldsView(db: Db, productId: string, viewer: Pick<RecordViewer, "encryptedPaths" | "piiVisible">, secretsKey: Buffer | undefined) {
  const keys = viewer.encryptedPaths.length > 0 && viewer.piiVisible && secretsKey ? await productFieldKeys(db, productId, secretsKey) : [];
  let decryptedFields = 0;
  const show = (decoded: DecodedValue): DecodedValue => {
    if (viewer.encryptedPaths.length === 0 || (decoded.encoding !== "avro" && decoded.encoding !== "json")) return decoded;
    let note: string;
    if (viewer.piiVisible) {
      const { decrypted, undecryptable } = revealEncrypted(decoded.value, viewer.encryptedPaths, keys);
      decryptedFields += decrypted.length;
      if (decrypted.length === 0 && undecryptable.length === 0) return decoded;
      note = [
        decrypted.length > 0 ? `Encrypted in the log: ${decrypted.join(", ")} — decrypted for you (audited).` : "",
        undecryptable.length > 0 ? `Encrypted in the log: ${undecryptable.join(", ")} — no key decrypts it (destroyed or unavailable): shown as ciphertext.` : "",
      ]
        .filter(Boolean)
        .join(" ");
    } else {
      note = `Encrypted in the log: ${viewer.encryptedPaths.join(", ")} (when written through the serializer); only viewers entitled to PII see it decrypted.`;
    }
    return { ...decoded, note: decoded.note ? `${decoded.note} ${note}` : note };
  };
  return { show, decryptedFields: () => decryptedFields };
}
