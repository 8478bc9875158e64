import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { authenticateServiceAccount, hashPassword, type Db } from "../src/index.ts";
import * as passwords from "../src/passwords.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

/*
 * Issue 30, finding 8: the Schema Registry's Basic auth took 30 wrong passwords
 * in 6 s, told known names from unknown ones by timing (a known name ran
 * scrypt, an unknown one did not: 208 ms vs 17 ms), and a NUL in the user name
 * was a 500. Now: the sign-in throttle, one scrypt on every path, 401 for
 * control characters.
 */

vi.mock("../src/passwords.ts", async (original) => {
  const real = await original<typeof import("../src/passwords.ts")>();
  return { ...real, verifyPassword: vi.fn(real.verifyPassword) };
});

let db: Db;
let dispose: () => Promise<void>;
const NAME = "payments-registry-victim";
const PASSWORD = "the-right-password";

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  const ctx = await seedPeople(db);
  await db.serviceAccount.create({ data: { domainId: ctx.payments.id, name: NAME, secretHash: await hashPassword(PASSWORD) } });
  await db.serviceAccount.create({ data: { domainId: ctx.payments.id, name: "payments-no-password-yet" } });
});
afterAll(async () => dispose());

const t0 = new Date("2026-12-05T10:00:00Z").getTime();
const attempt = (name: string, password: string, address: string | null, at: number) =>
  authenticateServiceAccount(db, name, password, address, at).then(
    () => "ok",
    (error: Error & { status?: number; code?: string; retryAfterSeconds?: number }) =>
      error.code === "SIGN_IN_THROTTLED" ? `throttled:${error.retryAfterSeconds}` : error.status === 401 ? "401" : Promise.reject(error),
  );

describe("Schema Registry Basic auth", () => {
  it("wrong passwords for a name are throttled like the sign-in; the right one is refused while blocked", async () => {
    const results: string[] = [];
    for (let i = 0; i < 7; i++) results.push(await attempt(NAME, `wrong-${i}`, "10.1.0.1", t0 + i * 100));
    expect(results).toEqual(["401", "401", "401", "401", "401", "throttled:15", "throttled:15"]);
    expect(await attempt(NAME, PASSWORD, "10.1.0.2", t0 + 1_000)).toBe("throttled:15");
    expect(await attempt(NAME, PASSWORD, "10.1.0.2", t0 + 16_000)).toBe("ok");
    const audit = await db.auditEvent.findFirst({ where: { action: "auth.registry.throttled" } });
    expect(audit?.data).toMatchObject({ by: "account", account: NAME, address: "10.1.0.1" });
  });

  it("unknown names are throttled too, and cost the same scrypt as a known one", async () => {
    const verify = vi.mocked(passwords.verifyPassword);
    verify.mockClear();
    expect(await attempt("payments-nobody", "x", "10.2.0.1", t0)).toBe("401");
    expect(await attempt("payments-no-password-yet", "x", "10.2.0.1", t0)).toBe("401");
    expect(await attempt(NAME, "wrong", "10.2.0.1", t0 + 60_000)).toBe("401");
    // One scrypt for the unknown name, one for the account without a password, one for the wrong password.
    expect(verify).toHaveBeenCalledTimes(3);
    const results: string[] = [];
    for (let i = 0; i < 6; i++) results.push(await attempt("payments-nobody", "x", "10.2.0.9", t0 + i));
    expect(results.at(-1)).toMatch(/^throttled:/);
  });

  it("a control character or lone surrogate in the name is a 401, not a 500", async () => {
    for (const name of ["payments\u0000x", "payments-\u0006", "bad\ud800"]) expect(await attempt(name, "x", null, t0)).toBe("401");
  });
});
