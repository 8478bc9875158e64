import { Prisma } from "@prisma/client";
import { authenticateLocalUser } from "./authenticate.ts";
import type { Db } from "./db.ts";
import { CatalogError } from "./errors.ts";

/*
 * Sign-in throttling (issue 8, finding 6), per account (the e-mail typed, known
 * or not) and per client address, kept in PostgreSQL so every portal instance
 * shares it and a restart forgets nothing.
 *
 * Every attempt is counted *before* the password is checked, inside a row lock
 * on its throttle keys: a burst of parallel guesses cannot all slip in before
 * the first failure is recorded. From `threshold` counted attempts on, each
 * further one blocks the key for a delay that doubles (capped); while a key is
 * blocked every attempt — the right password too — is refused without checking
 * the password and without counting. A success clears the account's count and
 * gives back the attempt it took from the address. Counts older than the
 * window start over. Each new block is an audit event.
 */

export interface ThrottlePolicy {
  threshold: number;
  firstBlockMs: number;
}

export const SIGN_IN_THROTTLE = {
  account: { threshold: 5, firstBlockMs: 15_000 } satisfies ThrottlePolicy,
  /** Higher: one office behind one NAT address is many people. */
  address: { threshold: 20, firstBlockMs: 5_000 } satisfies ThrottlePolicy,
  windowMs: 15 * 60_000,
  maxBlockMs: 15 * 60_000,
} as const;

const EMAIL_MAX = 254;
/** scrypt reads the whole password; nobody's is longer than this. */
const PASSWORD_MAX = 1024;

export class SignInThrottledError extends CatalogError {
  constructor(readonly retryAfterSeconds: number) {
    super("SIGN_IN_THROTTLED", 429, `Too many failed sign-ins; try again in ${retryAfterSeconds} s.`);
  }
}

/** The delay a key is blocked for after its `failures`-th counted attempt, or 0. */
export function blockDelayMs(failures: number, policy: ThrottlePolicy): number {
  if (failures < policy.threshold) return 0;
  return Math.min(SIGN_IN_THROTTLE.maxBlockMs, policy.firstBlockMs * 2 ** Math.min(30, failures - policy.threshold));
}

interface Key {
  key: string;
  kind: "account" | "address";
  policy: ThrottlePolicy;
}

/**
 * The keys of one attempt: the name tried (`account:<e-mail>` for the portal's
 * sign-in, `registry:<Kafka user>` for the Schema Registry's Basic auth) and
 * the client address, which both share — one client guessing at both counts once.
 */
function keysFor(email: string, address: string | null, namespace = "account"): Key[] {
  const keys: Key[] = [{ key: `${namespace}:${email}`, kind: "account", policy: SIGN_IN_THROTTLE.account }];
  if (address) keys.push({ key: `address:${address}`, kind: "address", policy: SIGN_IN_THROTTLE.address });
  return keys;
}

interface Counted {
  key: Key;
  failures: number;
  blockedUntil: Date | null;
}

/** Counts one attempt on every key, or refuses it when a key is blocked (nothing counted then). */
async function beginAttempt(db: Db, keys: Key[], now: Date): Promise<Counted[]> {
  return db.$transaction(async (tx) => {
    const ids = keys.map((k) => k.key).sort();
    // Create missing rows without touching existing ones, then lock all in a fixed order (no deadlocks).
    await tx.$executeRaw`INSERT INTO "SignInThrottle" ("key", "failures", "firstFailureAt", "lastFailureAt") SELECT k, 0, ${now}, ${now} FROM unnest(${ids}::text[]) AS k ON CONFLICT ("key") DO NOTHING`;
    const rows = await tx.$queryRaw<{ key: string; failures: number; firstFailureAt: Date; blockedUntil: Date | null }[]>`
      SELECT "key", "failures", "firstFailureAt", "blockedUntil" FROM "SignInThrottle" WHERE "key" = ANY(${ids}) ORDER BY "key" FOR UPDATE`;
    const blocked = rows.filter((r) => r.blockedUntil !== null && r.blockedUntil > now);
    if (blocked.length > 0) {
      const until = Math.max(...blocked.map((r) => r.blockedUntil?.getTime() ?? 0));
      throw new SignInThrottledError(Math.max(1, Math.ceil((until - now.getTime()) / 1000)));
    }
    const out: Counted[] = [];
    for (const key of keys) {
      const row = rows.find((r) => r.key === key.key);
      const fresh = !row || now.getTime() - row.firstFailureAt.getTime() > SIGN_IN_THROTTLE.windowMs;
      const failures = (fresh ? 0 : row.failures) + 1;
      const delay = blockDelayMs(failures, key.policy);
      const blockedUntil = delay > 0 ? new Date(now.getTime() + delay) : null;
      await tx.signInThrottle.update({
        where: { key: key.key },
        data: { failures, lastFailureAt: now, blockedUntil, ...(fresh ? { firstFailureAt: now } : {}) },
      });
      out.push({ key, failures, blockedUntil });
    }
    return out;
  });
}

/** Gives the attempt back after a success: the account starts over, the address keeps its other failures. */
async function attemptSucceeded(db: Db, counted: Counted[]): Promise<void> {
  for (const c of counted) {
    if (c.key.kind === "account") await db.signInThrottle.delete({ where: { key: c.key.key } }).catch(ignoreMissing);
    else await db.$executeRaw`UPDATE "SignInThrottle" SET "failures" = GREATEST("failures" - 1, 0), "blockedUntil" = NULL WHERE "key" = ${c.key.key}`;
  }
}

function ignoreMissing(error: unknown): void {
  if (error instanceof Prisma.PrismaClientKnownRequestError && error.code === "P2025") return;
  throw error;
}

interface BlockAudit {
  actorEmail: string;
  action: string;
  entityType: string;
  /** The id of the row the name belongs to, or null for a name nobody has. */
  entityId: () => Promise<string | null>;
  /** Key of the name in the event's data (`email`, `account`). */
  field: string;
}

async function auditBlocks(db: Db, counted: Counted[], email: string, address: string | null, now: Date, audit: BlockAudit = signInAudit(db, email)): Promise<void> {
  const blocks = counted.filter((c) => c.blockedUntil !== null);
  if (blocks.length === 0) return;
  const entityId = await audit.entityId();
  await db.auditEvent.createMany({
    data: blocks.map((c) => ({
      actorId: null,
      actorEmail: audit.actorEmail,
      action: audit.action,
      entityType: audit.entityType,
      entityId: entityId ?? `unknown:${email}`,
      data: {
        by: c.key.kind,
        [audit.field]: email,
        address,
        failures: c.failures,
        blockedForSeconds: Math.round(((c.blockedUntil?.getTime() ?? now.getTime()) - now.getTime()) / 1000),
      },
    })),
  });
}

function signInAudit(db: Db, email: string): BlockAudit {
  return {
    actorEmail: "sign-in",
    action: "auth.signin.throttled",
    entityType: "User",
    entityId: async () => (await db.user.findUnique({ where: { email }, select: { id: true } }))?.id ?? null,
    field: "email",
  };
}

/**
 * Runs `check` as one throttled attempt on the name and the address: counted
 * before the check, refused (SignInThrottledError) without checking while a
 * key is blocked, given back on success. `check` must cost the same whether or
 * not the name exists (a dummy hash for unknown names).
 */
export async function throttledAttempt<T>(
  db: Db,
  target: { namespace: string; name: string; address: string | null; audit: BlockAudit },
  check: () => Promise<T | null>,
  now: Date = new Date(),
): Promise<T | null> {
  const counted = await beginAttempt(db, keysFor(target.name, target.address, target.namespace), now);
  const result = await check();
  if (result !== null) await attemptSucceeded(db, counted);
  else await auditBlocks(db, counted, target.name, target.address, now, target.audit);
  return result;
}

/**
 * Local sign-in with throttling: the user, or null for wrong credentials;
 * throws SignInThrottledError while the account or the address is blocked.
 */
export async function authenticateWithThrottle(db: Db, rawEmail: string, password: string, address: string | null, now: Date = new Date()) {
  const email = rawEmail.trim().toLowerCase().slice(0, EMAIL_MAX);
  const counted = await beginAttempt(db, keysFor(email, address), now);
  const user = password.length > PASSWORD_MAX || email.length === 0 ? null : await authenticateLocalUser(db, email, password);
  if (user) await attemptSucceeded(db, counted);
  else await auditBlocks(db, counted, email, address, now);
  return user;
}
