import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { authenticateWithThrottle, blockDelayMs, hashPassword, SIGN_IN_THROTTLE, type Db } from "../src/index.ts";
import { openTestDatabase } from "./fixtures.ts";

/* Issue 8, finding 6: 200 wrong passwords in 23 s all got a plain 401, and the right one worked straight after. */

let db: Db;
let dispose: () => Promise<void>;
const EMAIL = "victim@orders.test";
const PASSWORD = "the-right-password";

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  await db.user.create({ data: { email: EMAIL, name: "Victim", passwordHash: await hashPassword(PASSWORD) } });
});
afterAll(async () => dispose());

const at = (base: Date, ms: number) => new Date(base.getTime() + ms);
const attempt = (password: string, address: string | null, now: Date, email = EMAIL) =>
  authenticateWithThrottle(db, email, password, address, now).then(
    (user) => (user ? "ok" : "wrong"),
    (error: Error & { code?: string; retryAfterSeconds?: number }) => (error.code === "SIGN_IN_THROTTLED" ? `throttled:${error.retryAfterSeconds}` : Promise.reject(error)),
  );

describe("sign-in throttling", () => {
  it("delays grow per account; the right password is refused while blocked; a success starts over", async () => {
    const t0 = new Date("2026-12-01T10:00:00Z");
    const results: string[] = [];
    for (let i = 0; i < 8; i++) results.push(await attempt("wrong", "10.0.0.1", at(t0, i * 100)));
    expect(results).toEqual(["wrong", "wrong", "wrong", "wrong", "wrong", "throttled:15", "throttled:15", "throttled:15"]);
    expect(await attempt(PASSWORD, "10.0.0.2", at(t0, 1_000))).toBe("throttled:15");
    // After the first block (15 s) one more guess, then 30 s, then 60 s.
    expect(await attempt("wrong", "10.0.0.1", at(t0, 16_000))).toBe("wrong");
    expect(await attempt("wrong", "10.0.0.1", at(t0, 17_000))).toBe("throttled:29");
    expect(await attempt("wrong", "10.0.0.1", at(t0, 46_500))).toBe("wrong");
    expect(await attempt(PASSWORD, "10.0.0.1", at(t0, 47_000))).toBe("throttled:60");
    expect(await attempt(PASSWORD, "10.0.0.1", at(t0, 107_000))).toBe("ok");
    expect(await attempt("wrong", "10.0.0.1", at(t0, 108_000))).toBe("wrong");
    expect(await attempt(PASSWORD, "10.0.0.1", at(t0, 109_000))).toBe("ok");
    const audits = await db.auditEvent.findMany({ where: { action: "auth.signin.throttled" }, orderBy: { id: "asc" } });
    expect(audits.map((a) => (a.data as { blockedForSeconds: number }).blockedForSeconds)).toEqual([15, 30, 60]);
    expect(audits.every((a) => a.entityType === "User" && (a.data as { by: string }).by === "account")).toBe(true);
  });

  it("blocks an address that sprays many accounts, and parallel guesses cannot slip past the count", async () => {
    const t0 = new Date("2026-12-02T10:00:00Z");
    const spray = [];
    for (let i = 0; i < SIGN_IN_THROTTLE.address.threshold + 3; i++) spray.push(await attempt("guess", "192.0.2.7", at(t0, i * 10), `user${i}@spray.test`));
    expect(spray.slice(0, SIGN_IN_THROTTLE.address.threshold)).toEqual(Array(SIGN_IN_THROTTLE.address.threshold).fill("wrong"));
    expect(spray.slice(SIGN_IN_THROTTLE.address.threshold).every((r) => r.startsWith("throttled:"))).toBe(true);
    // Another address is not affected.
    expect(await attempt(PASSWORD, "192.0.2.8", at(t0, 500))).toBe("ok");

    const t1 = new Date("2026-12-03T10:00:00Z");
    const parallel = await Promise.all(Array.from({ length: 30 }, () => attempt("wrong", null, t1, "burst@orders.test")));
    expect(parallel.filter((r) => r === "wrong")).toHaveLength(SIGN_IN_THROTTLE.account.threshold);
    expect(parallel.filter((r) => r.startsWith("throttled:"))).toHaveLength(30 - SIGN_IN_THROTTLE.account.threshold);
    // Over fifty password checks (scrypt) on a shared machine: a condition to reach, not a speed target.
  }, 120_000);

  it("a password sign-in records the user's last sign-in; a wrong password does not (issue 31, point 9)", async () => {
    const email = "last-sign-in@orders.test";
    await db.user.create({ data: { email, name: "Last", passwordHash: await hashPassword(PASSWORD) } });
    const t0 = new Date("2026-12-04T10:00:00Z");
    expect(await attempt("wrong", "10.9.0.1", t0, email)).toBe("wrong");
    expect((await db.user.findUniqueOrThrow({ where: { email } })).lastSignInAt).toBeNull();
    const before = Date.now();
    expect(await attempt(PASSWORD, "10.9.0.1", at(t0, 1_000), email)).toBe("ok");
    const recorded = (await db.user.findUniqueOrThrow({ where: { email } })).lastSignInAt;
    expect(recorded?.getTime()).toBeGreaterThanOrEqual(before);
  });

  it("the delay doubles and is capped", () => {
    expect([4, 5, 6, 7].map((n) => blockDelayMs(n, SIGN_IN_THROTTLE.account))).toEqual([0, 15_000, 30_000, 60_000]);
    expect(blockDelayMs(100, SIGN_IN_THROTTLE.account)).toBe(SIGN_IN_THROTTLE.maxBlockMs);
  });
});
