// SCRAM (RFC 5802, SHA-2 variants per RFC 7677) as Apache Kafka uses it for
// SASL/SCRAM-SHA-256 and SASL/SCRAM-SHA-512 (Kafka's ScramFormatter,
// ScramMessages and ScramSaslServer).
//
//   SaltedPassword  = Hi(password, salt, i)          (PBKDF2 with HMAC-H)
//   ClientKey       = HMAC(SaltedPassword, "Client Key")
//   StoredKey       = H(ClientKey)
//   ServerKey       = HMAC(SaltedPassword, "Server Key")
//   AuthMessage     = client-first-bare "," server-first "," client-final-without-proof
//   ClientSignature = HMAC(StoredKey, AuthMessage)
//   ClientProof     = ClientKey XOR ClientSignature
//   ServerSignature = HMAC(ServerKey, AuthMessage)
//
// The broker keeps only (salt, iterations, StoredKey, ServerKey): enough to verify
// a proof (StoredKey == H(proof XOR ClientSignature)) and to prove itself to the
// client (ServerSignature), but not enough to log in as the user.
import { createHash, createHmac, pbkdf2, randomBytes, timingSafeEqual } from "node:crypto";

export type ScramMechanismName = "SCRAM-SHA-256" | "SCRAM-SHA-512";

export interface ScramMechanism {
  name: ScramMechanismName;
  /** Wire code in DescribeUserScramCredentials / AlterUserScramCredentials (Kafka's ScramMechanism.type()). */
  type: 1 | 2;
  hash: "sha256" | "sha512";
  /** Digest length in bytes: the length of StoredKey, ServerKey, proofs and salted passwords. */
  keyLength: number;
}

export const SCRAM_SHA_256: ScramMechanism = { name: "SCRAM-SHA-256", type: 1, hash: "sha256", keyLength: 32 };
export const SCRAM_SHA_512: ScramMechanism = { name: "SCRAM-SHA-512", type: 2, hash: "sha512", keyLength: 64 };
export const SCRAM_MECHANISMS: readonly ScramMechanism[] = [SCRAM_SHA_256, SCRAM_SHA_512];

/** Kafka's ScramMechanism.minIterations (both SHA-2 variants); kafkajs also refuses fewer. */
export const MIN_ITERATIONS = 4096;
/** Kafka's ScramControlManager.MAX_ITERATIONS. */
export const MAX_ITERATIONS = 16384;

export function scramMechanismByName(name: string): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.name === name);
}

export function scramMechanismByType(type: number): ScramMechanism | undefined {
  return SCRAM_MECHANISMS.find((m) => m.type === type);
}

export interface ScramCredential {
  salt: Buffer;
  iterations: number;
  storedKey: Buffer;
  serverKey: Buffer;
}

function hmac(mech: ScramMechanism, key: Buffer, data: Buffer | string): Buffer {
  return createHmac(mech.hash, key).update(data).digest();
}

function h(mech: ScramMechanism, data: Buffer): Buffer {
  return createHash(mech.hash).update(data).digest();
}

/** Hi() of RFC 5802, on the libuv thread pool so that a handshake does not stall other connections. */
export function saltedPassword(mech: ScramMechanism, password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // RFC 5802 asks for SASLprep'ed UTF-8; Kafka (ScramFormatter.normalize) uses plain UTF-8, and so do we.
    pbkdf2(Buffer.from(password, "utf8"), salt, iterations, mech.keyLength, mech.hash, (err, key) => (err ? reject(err) : resolve(key)));
  });
}

export function clientKey(mech: ScramMechanism, salted: Buffer): Buffer {
  return hmac(mech, salted, "Client Key");
}

export function storedKey(mech: ScramMechanism, clientKeyBytes: Buffer): Buffer {
  return h(mech, clientKeyBytes);
}

export function serverKey(mech: ScramMechanism, salted: Buffer): Buffer {
  return hmac(mech, salted, "Server Key");
}

/** What AlterUserScramCredentials does with an upsertion: the salted password itself is never kept. */
export function credentialFromSaltedPassword(mech: ScramMechanism, salt: Buffer, iterations: number, salted: Buffer): ScramCredential {
  return { salt: Buffer.from(salt), iterations, storedKey: storedKey(mech, clientKey(mech, salted)), serverKey: serverKey(mech, salted) };
}

/** A fresh credential with a random salt (Kafka's ScramFormatter.generateCredential). */
export async function credentialFromPassword(mech: ScramMechanism, password: string, iterations: number): Promise<ScramCredential> {
  const salt = randomBytes(32);
  return credentialFromSaltedPassword(mech, salt, iterations, await saltedPassword(mech, password, salt, iterations));
}

/**
 * True when `password` matches `cred` (used by SASL/PLAIN, so that PLAIN needs no
 * plaintext or separate hash on disk): derive with the stored salt and iteration
 * count and compare StoredKey in constant time.
 */
export async function passwordMatches(mech: ScramMechanism, cred: ScramCredential, password: string): Promise<boolean> {
  const salted = await saltedPassword(mech, password, cred.salt, cred.iterations);
  const candidate = storedKey(mech, clientKey(mech, salted));
  return candidate.length === cred.storedKey.length && timingSafeEqual(candidate, cred.storedKey);
}

export function clientSignature(mech: ScramMechanism, storedKeyBytes: Buffer, authMessage: string): Buffer {
  return hmac(mech, storedKeyBytes, authMessage);
}

export function serverSignature(mech: ScramMechanism, serverKeyBytes: Buffer, authMessage: string): Buffer {
  return hmac(mech, serverKeyBytes, authMessage);
}

export function xor(a: Buffer, b: Buffer): Buffer {
  if (a.length !== b.length) throw new Error(`xor of ${a.length} and ${b.length} bytes`);
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i++) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out;
}

/** Client side of the proof, for tests and benchmarks (kafkajs computes the same). */
export function clientProof(mech: ScramMechanism, salted: Buffer, authMessage: string): Buffer {
  const ck = clientKey(mech, salted);
  return xor(ck, clientSignature(mech, storedKey(mech, ck), authMessage));
}

// ---------------------------------------------------------------------------
// Messages (RFC 5802 §7). Kafka accepts only gs2-cbind-flag "n" (no channel binding).

export class ScramFormatError extends Error {
  override name = "ScramFormatError";
}

export interface ClientFirstMessage {
  /** "n,," or "n,a=<authzid>," — echoed (base64) in the client-final `c=` attribute. */
  gs2Header: string;
  /** Empty when the client did not ask for one. */
  authorizationId: string;
  /** User name with the saslname escapes (=2C, =3D) undone. */
  userName: string;
  nonce: string;
  /** Everything after "n,...," — the part that enters AuthMessage. */
  bare: string;
  /** Extension attributes after the nonce (Kafka knows only `tokenauth`). */
  extensions: Map<string, string>;
}

// The grammar Kafka's ScramMessages accepts (RFC 5802 §7, ASCII only):
//   printable = %x21-2B / %x2D-7E (no comma); value = %x01-2B / %x2D-7F; saslname = value-safe chars or "=2C" / "=3D";
//   base64 = whole 4-character groups with proper padding.
const PRINTABLE = "[\\x21-\\x2b\\x2d-\\x7e]+";
const VALUE = "[\\x01-\\x2b\\x2d-\\x7f]+";
const SASLNAME = "(?:[\\x01-\\x2b\\x2d-\\x3c\\x3e-\\x7f]|=2C|=3D)+";
const BASE64 = "(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{3}=|[A-Za-z0-9+/]{2}==)?";
const EXTENSIONS = `(?:,[A-Za-z]+=${VALUE})*`;
const CLIENT_FIRST = new RegExp(`^(n,(?:a=(${SASLNAME}))?,)(n=(${SASLNAME}),r=(${PRINTABLE})(${EXTENSIONS}))$`);
const CLIENT_FINAL = new RegExp(`^(c=(${BASE64}),r=(${PRINTABLE})${EXTENSIONS}),p=(${BASE64})$`);

/** saslname → user name: "=2C" is ",", "=3D" is "=", any other "=" is malformed (RFC 5802 §5.1). */
export function unescapeSaslName(s: string): string {
  if (/=(?!2C|3D)/.test(s)) throw new ScramFormatError(`invalid escape in user name`);
  return s.replace(/=2C/g, ",").replace(/=3D/g, "=");
}

export function escapeSaslName(s: string): string {
  return s.replace(/=/g, "=3D").replace(/,/g, "=2C");
}

function utf8(token: Buffer): string {
  const text = token.toString("utf8");
  // Reject bytes that are not valid UTF-8 rather than comparing replacement characters.
  if (!Buffer.from(text, "utf8").equals(token)) throw new ScramFormatError("message is not valid UTF-8");
  return text;
}

/**
 * client-first-message as Kafka's ClientFirstMessage pattern accepts it: gs2 header
 * "n,," or "n,a=<authzid>," (no channel binding), n=<saslname>, r=<printable nonce>,
 * then optional extensions. A reserved "m=" (mandatory extension) is refused, as
 * RFC 5802 requires of a server that does not support it (Kafka ignores it).
 */
export function parseClientFirst(token: Buffer): ClientFirstMessage {
  const text = utf8(token);
  if (/^n,(?:a=[^,]*)?,m=/.test(text)) throw new ScramFormatError("mandatory extensions (m=) are not supported");
  const m = CLIENT_FIRST.exec(text);
  if (!m) throw new ScramFormatError("invalid SCRAM client-first-message format");
  const [, gs2Header = "", authzid, bare = "", saslName = "", nonce = "", extText = ""] = m;
  const extensions = new Map<string, string>();
  for (const e of extText.split(",").slice(1)) {
    const eq = e.indexOf("=");
    extensions.set(e.slice(0, eq), e.slice(eq + 1));
  }
  return {
    gs2Header,
    authorizationId: authzid !== undefined ? unescapeSaslName(authzid) : "",
    userName: unescapeSaslName(saslName),
    nonce,
    bare,
    extensions,
  };
}

export interface ClientFinalMessage {
  channelBinding: Buffer;
  nonce: string;
  proof: Buffer;
  withoutProof: string;
}

/** client-final-message as Kafka's ClientFinalMessage pattern accepts it: c=<base64>,r=<printable>[,extensions],p=<base64>. */
export function parseClientFinal(token: Buffer): ClientFinalMessage {
  const text = utf8(token);
  const m = CLIENT_FINAL.exec(text);
  if (!m) throw new ScramFormatError("invalid SCRAM client-final-message format");
  const [, withoutProof = "", cb = "", nonce = "", proofText = ""] = m;
  return { channelBinding: Buffer.from(cb, "base64"), nonce, proof: Buffer.from(proofText, "base64"), withoutProof };
}

export function formatServerFirst(nonce: string, salt: Buffer, iterations: number): string {
  return `r=${nonce},s=${salt.toString("base64")},i=${iterations}`;
}

export function formatServerFinal(signature: Buffer): string {
  return `v=${signature.toString("base64")}`;
}

/** Kafka's ScramFormatter.secureRandomString is alphanumeric; base64url is printable and comma-free too. */
export function serverNonce(): string {
  return randomBytes(24).toString("base64url");
}
