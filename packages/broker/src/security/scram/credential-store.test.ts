// The credential store survives restarts, keeps only salt/iterations/keys, and a
// failed write changes nothing.
import { mkdir, mkdtemp, readFile, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { ensureBootstrapUsers } from "../sasl/bootstrap.ts";
import { ScramCredentialStore } from "./credential-store.ts";
import { SCRAM_SHA_256, SCRAM_SHA_512, credentialFromPassword, passwordMatches, saltedPassword } from "./scram.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "kappa-cred-test-"));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("ScramCredentialStore", () => {
  it("keeps users across a restart, and the file holds neither the password nor the salted password", async () => {
    const password = "correct horse battery staple";
    const store = await ScramCredentialStore.open(dir);
    const cred512 = await credentialFromPassword(SCRAM_SHA_512, password, 4096);
    await store.apply([
      { kind: "upsert", user: "alice", mechanism: SCRAM_SHA_512, credential: cred512 },
      { kind: "upsert", user: "alice", mechanism: SCRAM_SHA_256, credential: await credentialFromPassword(SCRAM_SHA_256, password, 8192) },
      { kind: "upsert", user: "bob", mechanism: SCRAM_SHA_256, credential: await credentialFromPassword(SCRAM_SHA_256, "pw-bob", 4096) },
    ]);
    await store.apply([{ kind: "delete", user: "bob", mechanism: SCRAM_SHA_256 }]);

    const reopened = await ScramCredentialStore.open(dir);
    expect(reopened.userNames()).toEqual(["alice"]);
    expect(reopened.describe("alice").map((d) => [d.mechanism.name, d.iterations])).toEqual([
      ["SCRAM-SHA-256", 8192],
      ["SCRAM-SHA-512", 4096],
    ]);
    const again = reopened.get("alice", SCRAM_SHA_512);
    expect(again).toBeDefined();
    if (!again) return;
    expect(await passwordMatches(SCRAM_SHA_512, again, password)).toBe(true);

    const file = ScramCredentialStore.fileIn(dir);
    const text = await readFile(file, "utf8");
    const salted = await saltedPassword(SCRAM_SHA_512, password, cred512.salt, 4096);
    expect(text).not.toContain(password);
    expect(text).not.toContain(Buffer.from(password).toString("base64"));
    expect(text).not.toContain(salted.toString("base64"));
    expect(text).not.toContain(salted.toString("hex"));
    expect(text).toContain(cred512.storedKey.toString("base64"));
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  });

  it("a write that fails leaves the users as they were", async () => {
    const store = await ScramCredentialStore.open(dir);
    await store.apply([{ kind: "upsert", user: "alice", mechanism: SCRAM_SHA_512, credential: await credentialFromPassword(SCRAM_SHA_512, "a", 4096) }]);
    // Tests run as root, which ignores file permissions: block the temp file's path with a directory instead.
    await mkdir(join(dir, "security", "scram-credentials.json.tmp"));
    await expect(
      store.apply([{ kind: "upsert", user: "mallory", mechanism: SCRAM_SHA_512, credential: await credentialFromPassword(SCRAM_SHA_512, "m", 4096) }]),
    ).rejects.toThrow();
    expect(store.userNames()).toEqual(["alice"]);
    expect((await ScramCredentialStore.open(dir)).userNames()).toEqual(["alice"]);
  });

  it("refuses to start on a damaged file instead of dropping users", async () => {
    await ScramCredentialStore.open(dir);
    await writeFile(ScramCredentialStore.fileIn(dir), '{"version":1,"users":{"alice":{"SCRAM-SHA-512":{"salt":"AA=="}}}}');
    await expect(ScramCredentialStore.open(dir)).rejects.toThrow(/alice SCRAM-SHA-512/);
    await writeFile(ScramCredentialStore.fileIn(dir), "{not json");
    await expect(ScramCredentialStore.open(dir)).rejects.toThrow(/not valid JSON/);
  });

  it("bootstrap users: created once, kept when the password is unchanged, updated when it changes", async () => {
    const store = await ScramCredentialStore.open(dir);
    expect(await ensureBootstrapUsers(store, [{ name: "admin", password: "one" }])).toEqual(["admin"]);
    const salt = store.get("admin", SCRAM_SHA_512)?.salt.toString("hex");
    expect(await ensureBootstrapUsers(store, [{ name: "admin", password: "one" }])).toEqual([]);
    expect(store.get("admin", SCRAM_SHA_512)?.salt.toString("hex")).toBe(salt);
    expect(await ensureBootstrapUsers(store, [{ name: "admin", password: "two" }])).toEqual(["admin"]);
    const cred = store.get("admin", SCRAM_SHA_256);
    expect(cred && (await passwordMatches(SCRAM_SHA_256, cred, "two"))).toBe(true);
  });
});
