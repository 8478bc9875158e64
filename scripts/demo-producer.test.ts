import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { decryptSecret, encryptSecret } from "@kappa/catalog/secrets";
import { DEMO_PRODUCERS, openKeptCopy, writeKeptCopy } from "./demo-producer.ts";

/*
 * The launcher's copies of the demo producers' passwords (scripts/demo-producer.ts):
 * sealed, private to the launcher's user, one file per account, and each used
 * only while it is still its account's credential. Issuing it on the broker and in the catalog is
 * exercised by `npm start` itself (see the README's data-contracts section);
 * this suite has no catalog database.
 */

const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-demo-producer-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("the demo producer's kept copy", () => {
  const key = randomBytes(32);
  const account = { id: "acc-orders-producer", name: "orders-producer", issuedMs: Date.UTC(2026, 11, 6, 8, 0, 0, 123) };
  const file = path.join(dir, DEMO_PRODUCERS.orders.file);
  const password = "S3cret-demo-password-" + randomBytes(8).toString("hex");

  it("is sealed under the secrets key (no password in the file), readable by its owner only, and opens for the same credential", () => {
    writeKeptCopy(file, key, account.id, new Date(account.issuedMs), password, encryptSecret);
    expect(readFileSync(file, "utf8")).not.toContain(password);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(openKeptCopy(file, key, account, decryptSecret)).toEqual({ password });
  });

  it("is refused once the owners rotated the credential, for another account, under another key, or when missing", () => {
    expect(openKeptCopy(file, key, { ...account, issuedMs: account.issuedMs + 1 }, decryptSecret)).toEqual({ reason: expect.stringContaining("was rotated since the demo issued it") });
    expect(openKeptCopy(file, key, { ...account, issuedMs: null }, decryptSecret)).toEqual({ reason: expect.stringContaining("was rotated") });
    expect(openKeptCopy(file, key, { ...account, id: "acc-other" }, decryptSecret)).toEqual({ reason: expect.stringContaining("belongs to another account") });
    expect(openKeptCopy(file, randomBytes(32), account, decryptSecret)).toEqual({ reason: expect.stringContaining("another KAPPA_SECRETS_KEY") });
    expect(openKeptCopy(path.join(dir, "absent"), key, account, decryptSecret)).toEqual({ reason: expect.stringContaining("holds no copy of its password") });
  });

  it("is one file per account: the orders copy keeps its first name (data folders hold it), and one account's copy never opens for the other", () => {
    expect(DEMO_PRODUCERS.orders.file).toBe("demo-producer.sealed");
    expect(new Set(Object.values(DEMO_PRODUCERS).map((p) => p.file)).size).toBe(Object.keys(DEMO_PRODUCERS).length);
    const payments = { id: "acc-payments-producer", name: "payments-producer", issuedMs: account.issuedMs };
    const paymentsFile = path.join(dir, DEMO_PRODUCERS.payments.file);
    const paymentsPassword = "S3cret-payments-" + randomBytes(8).toString("hex");
    writeKeptCopy(paymentsFile, key, payments.id, new Date(payments.issuedMs), paymentsPassword, encryptSecret);
    expect(statSync(paymentsFile).mode & 0o777).toBe(0o600);
    expect(openKeptCopy(paymentsFile, key, payments, decryptSecret)).toEqual({ password: paymentsPassword });
    expect(openKeptCopy(file, key, payments, decryptSecret)).toEqual({ reason: expect.stringContaining("belongs to another account") });
    // Bound to the account inside the seal too: a copy whose account id was edited to the other's does not open.
    const forged = { ...(JSON.parse(readFileSync(paymentsFile, "utf8")) as object), accountId: account.id };
    writeFileSync(path.join(dir, "forged"), JSON.stringify(forged));
    expect(openKeptCopy(path.join(dir, "forged"), key, account, decryptSecret)).toEqual({ reason: expect.stringContaining("another KAPPA_SECRETS_KEY") });
  });
});
