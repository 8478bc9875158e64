// Durable SCRAM credentials: what Kafka keeps in its metadata log as
// UserScramCredentialRecord (name, mechanism, salt, StoredKey, ServerKey,
// iterations). Never a password or salted password.
//
// One JSON file, `<log.dirs>/security/scram-credentials.json`, mode 0600, replaced
// atomically (write temp file, fsync, rename, fsync directory) on every change, so
// a crash leaves either the old or the new set of users. Changes are applied in
// memory only after the file is durable, so a failed write changes nothing and an
// acknowledged AlterUserScramCredentials survives a crash. Writes are serialized.
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir } from "../../storage/files.ts";
import { SCRAM_MECHANISMS, scramMechanismByName, type ScramCredential, type ScramMechanism, type ScramMechanismName } from "./scram.ts";

const FILE_VERSION = 1;

export type CredentialChange =
  | { kind: "upsert"; user: string; mechanism: ScramMechanism; credential: ScramCredential }
  | { kind: "delete"; user: string; mechanism: ScramMechanism };

interface FileCredential {
  salt: string;
  iterations: number;
  storedKey: string;
  serverKey: string;
}

interface FileFormat {
  version: number;
  users: Record<string, Partial<Record<ScramMechanismName, FileCredential>>>;
}

export class CredentialStoreError extends Error {
  override name = "CredentialStoreError";
}

export class ScramCredentialStore {
  /** user → mechanism → credential */
  private users = new Map<string, Map<ScramMechanismName, ScramCredential>>();
  private writing: Promise<void> = Promise.resolve();

  private constructor(readonly path: string) {}

  static fileIn(dataDir: string): string {
    return join(dataDir, "security", "scram-credentials.json");
  }

  /** Loads the store of a data dir; a damaged file stops start-up rather than silently dropping users. */
  static async open(dataDir: string): Promise<ScramCredentialStore> {
    const store = new ScramCredentialStore(ScramCredentialStore.fileIn(dataDir));
    await mkdir(join(dataDir, "security"), { recursive: true, mode: 0o700 });
    let text: string;
    try {
      text = await readFile(store.path, "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return store;
      throw err;
    }
    store.users = parseFile(store.path, text);
    return store;
  }

  get(user: string, mechanism: ScramMechanism): ScramCredential | undefined {
    return this.users.get(user)?.get(mechanism.name);
  }

  /**
   * The iteration count most credentials of `mechanism` use (4096, Kafka's
   * minimum, when there are none): what a dummy verification for an unknown
   * user costs, so that it takes as long as a real one.
   */
  typicalIterations(mechanism: ScramMechanism): number {
    const counts = new Map<number, number>();
    for (const m of this.users.values()) {
      const c = m.get(mechanism.name);
      if (c) counts.set(c.iterations, (counts.get(c.iterations) ?? 0) + 1);
    }
    let best = 4096;
    let bestCount = 0;
    for (const [iterations, n] of counts) {
      if (n > bestCount) [best, bestCount] = [iterations, n];
    }
    return best;
  }

  /** Users with at least one credential, sorted. */
  userNames(): string[] {
    return [...this.users.keys()].sort();
  }

  /** Mechanisms and iteration counts of a user, in mechanism-type order (what DescribeUserScramCredentials shows). */
  describe(user: string): Array<{ mechanism: ScramMechanism; iterations: number }> {
    const m = this.users.get(user);
    if (!m) return [];
    return SCRAM_MECHANISMS.flatMap((mech) => {
      const c = m.get(mech.name);
      return c ? [{ mechanism: mech, iterations: c.iterations }] : [];
    });
  }

  /** Applies all changes as one durable step (one file replacement). */
  apply(changes: readonly CredentialChange[]): Promise<void> {
    const run = this.writing.then(async () => {
      const next = new Map<string, Map<ScramMechanismName, ScramCredential>>();
      for (const [u, m] of this.users) next.set(u, new Map(m));
      for (const c of changes) {
        if (c.kind === "upsert") {
          let m = next.get(c.user);
          if (!m) next.set(c.user, (m = new Map<ScramMechanismName, ScramCredential>()));
          m.set(c.mechanism.name, c.credential);
        } else {
          const m = next.get(c.user);
          m?.delete(c.mechanism.name);
          if (m && m.size === 0) next.delete(c.user);
        }
      }
      await this.persist(next);
      this.users = next;
    });
    // Keep the chain alive after a failure; the caller still sees the rejection.
    this.writing = run.catch(() => undefined);
    return run;
  }

  private async persist(users: Map<string, Map<ScramMechanismName, ScramCredential>>): Promise<void> {
    const file: FileFormat = { version: FILE_VERSION, users: {} };
    for (const [u, m] of [...users].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
      const entry: Partial<Record<ScramMechanismName, FileCredential>> = {};
      for (const [name, c] of m) {
        entry[name] = { salt: c.salt.toString("base64"), iterations: c.iterations, storedKey: c.storedKey.toString("base64"), serverKey: c.serverKey.toString("base64") };
      }
      file.users[u] = entry;
    }
    const tmp = `${this.path}.tmp`;
    // 0600: StoredKey/ServerKey do not let anyone log in, but they allow an offline
    // dictionary attack and let the holder impersonate the broker to SCRAM clients.
    const h = await open(tmp, "w", 0o600);
    try {
      await h.writeFile(`${JSON.stringify(file, null, 2)}\n`);
      await h.sync();
    } finally {
      await h.close();
    }
    await rename(tmp, this.path);
    await fsyncDir(join(this.path, ".."));
  }
}

function parseFile(path: string, text: string): Map<string, Map<ScramMechanismName, ScramCredential>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new CredentialStoreError(`SCRAM credential file ${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const bad = (what: string) => new CredentialStoreError(`SCRAM credential file ${path}: ${what}`);
  if (typeof raw !== "object" || raw === null || !("version" in raw) || !("users" in raw)) throw bad("expected {version, users}");
  if (raw.version !== FILE_VERSION) throw bad(`unsupported version ${String(raw.version)}`);
  const usersRaw = raw.users;
  if (typeof usersRaw !== "object" || usersRaw === null) throw bad("users must be an object");
  const out = new Map<string, Map<ScramMechanismName, ScramCredential>>();
  for (const [user, mechs] of Object.entries(usersRaw)) {
    if (typeof mechs !== "object" || mechs === null) throw bad(`user ${user}: expected an object`);
    const m = new Map<ScramMechanismName, ScramCredential>();
    for (const [name, c] of Object.entries(mechs as Record<string, unknown>)) {
      const mech = scramMechanismByName(name);
      if (!mech) throw bad(`user ${user}: unknown mechanism ${name}`);
      if (typeof c !== "object" || c === null) throw bad(`user ${user} ${name}: expected an object`);
      const rec = c as Record<string, unknown>;
      const { salt, iterations, storedKey, serverKey } = rec;
      if (typeof salt !== "string" || typeof storedKey !== "string" || typeof serverKey !== "string" || typeof iterations !== "number" || !Number.isInteger(iterations)) {
        throw bad(`user ${user} ${name}: expected salt, iterations, storedKey, serverKey`);
      }
      const cred: ScramCredential = { salt: Buffer.from(salt, "base64"), iterations, storedKey: Buffer.from(storedKey, "base64"), serverKey: Buffer.from(serverKey, "base64") };
      if (cred.storedKey.length !== mech.keyLength || cred.serverKey.length !== mech.keyLength) throw bad(`user ${user} ${name}: key length does not match the mechanism`);
      m.set(mech.name, cred);
    }
    if (m.size > 0) out.set(user, m);
  }
  return out;
}
