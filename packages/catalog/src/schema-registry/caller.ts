import { createHash, timingSafeEqual } from "node:crypto";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { hashPassword, verifyPassword } from "../passwords.ts";
import { throttledAttempt } from "../sign-in-throttle.ts";
import { textProblem } from "../validation.ts";
import { RegistryError } from "./registry-errors.ts";

/**
 * Who calls the registry API: a service account with its Kafka credentials
 * (what Schema Registry clients in producers and consumers send as HTTP
 * Basic), or a signed-in user (session or API token).
 */
export type RegistryCaller =
  | {
      kind: "serviceAccount";
      /**
       * `jobInputIds`: for a derived product's job account (issue 34), the inputs its job may read — those of its own
       * domain and those its domain holds a granted subscription to (primary environment), as its Kafka READ grants.
       */
      account: { id: string; name: string; domainId: string; isProducer: boolean; jobInputIds?: string[] };
    }
  | { kind: "user"; actor: Actor };

/*
 * A client sends its password with every request, and scrypt costs tens of
 * milliseconds by design. A verified (name, password) pair is remembered as a
 * SHA-256 digest next to the stored hash it matched: the stored hash is read
 * on every request, so a rotated or removed credential stops working at once;
 * only the scrypt step is skipped for a pair already proven against that hash.
 */
const CACHE_LIMIT = 1024;
const CACHE_TTL_MS = 5 * 60_000;
const verified = new Map<string, { digest: Buffer; secretHash: string; at: number }>();

function digestOf(name: string, password: string): Buffer {
  return createHash("sha256").update(`${name}\u0000${password}`).digest();
}

const REFUSED = "Unauthorized: unknown service account or wrong password.";
/** Kafka user names are at most 249 characters (as topics); scrypt reads the whole password, and nobody's is longer than this. */
const NAME_MAX = 249;
const PASSWORD_MAX = 1024;

// Compared against when the name is unknown (or has no password yet), so
// both paths cost one scrypt and the answer's timing does not tell names apart.
let dummyHash: Promise<string> | undefined;

/**
 * A service account by its Kafka user name and password; throws 401
 * otherwise. Guesses are throttled like the portal's sign-in (issue 30,
 * finding 8): per name (`registry:<name>`) and per client address (shared with
 * the sign-in), counted before the password is checked; while blocked the
 * answer is SignInThrottledError (429 with Retry-After), the right password too.
 * A pair proven in the last minutes skips scrypt and the throttle: its digest
 * matching is the proof, and a blocked attacker must not lock out the real client.
 */
export async function authenticateServiceAccount(db: Db, name: string, password: string, address: string | null = null, now = Date.now()) {
  // A control character (NUL: PostgreSQL cannot even compare it) or a lone surrogate is no one's name.
  if (name.length === 0 || name.length > NAME_MAX || textProblem("name", name, false) !== null) throw new RegistryError("UNAUTHORIZED", REFUSED);
  const load = () => db.serviceAccount.findUnique({ where: { name }, select: { id: true, name: true, domainId: true, isProducer: true, secretHash: true } });
  const digest = digestOf(name, password);
  const cached = verified.get(name);
  if (cached && now - cached.at < CACHE_TTL_MS && timingSafeEqual(cached.digest, digest)) {
    const account = await load();
    // The stored hash is read every time: a rotated or removed credential stops working at once.
    if (account?.secretHash === cached.secretHash) return withJobInputs(db, withoutSecret(account));
  }
  const account = await throttledAttempt(
    db,
    {
      namespace: "registry",
      name,
      address,
      audit: {
        actorEmail: "schema-registry",
        action: "auth.registry.throttled",
        entityType: "ServiceAccount",
        entityId: async () => (await db.serviceAccount.findUnique({ where: { name }, select: { id: true } }))?.id ?? null,
        field: "account",
      },
    },
    async () => {
      const found = password.length > PASSWORD_MAX ? null : await load();
      if (!found?.secretHash) {
        await verifyPassword(password.slice(0, PASSWORD_MAX), await (dummyHash ??= hashPassword("not-a-password")));
        return null;
      }
      return (await verifyPassword(password, found.secretHash)) ? { ...found, secretHash: found.secretHash } : null;
    },
    new Date(now),
  );
  if (!account) throw new RegistryError("UNAUTHORIZED", REFUSED);
  verified.delete(name);
  verified.set(name, { digest, secretHash: account.secretHash, at: now });
  if (verified.size > CACHE_LIMIT) {
    const oldest = verified.keys().next().value;
    if (oldest !== undefined) verified.delete(oldest);
  }
  return withJobInputs(db, withoutSecret(account));
}

const LIVE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;

/**
 * A derived product's job account reads its inputs' schemas (Flink's `avro-confluent` format fetches a record's writer
 * schema by id): the job account holds no subscription of its own — its domain does, and the worker grants the job READ
 * on exactly these inputs (live product, live input, same domain or a granted subscription of the domain). Read on
 * every request, like the credential: a revoked subscription ends the registry read at once.
 */
async function withJobInputs<T extends { id: string; domainId: string }>(db: Db, account: T): Promise<T & { jobInputIds?: string[] }> {
  const job = await db.derivedProduct.findUnique({ where: { serviceAccountId: account.id }, select: { productId: true } });
  if (!job) return account;
  const product = await db.dataProduct.findFirst({
    where: { id: job.productId, domainId: account.domainId, status: { in: [...LIVE] } },
    select: { inputs: { where: { input: { status: { in: [...LIVE] } } }, select: { input: { select: { id: true, domainId: true } } } } },
  });
  const inputs = product?.inputs.map((i) => i.input) ?? [];
  const foreign = inputs.filter((i) => i.domainId !== account.domainId).map((i) => i.id);
  const granted = foreign.length
    ? new Set((await db.subscription.findMany({ where: { productId: { in: foreign }, consumingDomainId: account.domainId, environment: null, status: { in: ["APPROVED", "ACTIVE"] } }, select: { productId: true } })).map((s) => s.productId))
    : new Set<string>();
  return { ...account, jobInputIds: inputs.filter((i) => i.domainId === account.domainId || granted.has(i.id)).map((i) => i.id) };
}

function withoutSecret<T extends { secretHash: string | null }>(account: T): Omit<T, "secretHash"> {
  const { secretHash: _secret, ...rest } = account;
  return rest;
}

/** Splits `Basic base64(user:password)`; null when the header is another scheme. */
export function parseBasicAuthorization(header: string): { username: string; password: string } | null {
  const match = /^Basic[ ]+([A-Za-z0-9+/=]+)$/i.exec(header.trim());
  if (!match?.[1]) return null;
  const decoded = Buffer.from(match[1], "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  if (colon < 0) return null;
  return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}
