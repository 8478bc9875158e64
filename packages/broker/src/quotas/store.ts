// Durable client quotas: what Kafka keeps in its metadata log as
// ClientQuotaRecord (entity, key, value).
//
// One JSON file, `<log.dirs>/quotas/client-quotas.json`, replaced atomically
// (temp file, fsync, rename, fsync directory) on every change, as the SCRAM
// credential store is: a crash leaves the old or the new set, an acknowledged
// AlterClientQuotas survives a restart, and the in-memory view changes only
// once the file is durable. Writes are serialized.
import { mkdir, open, readFile, rename } from "node:fs/promises";
import { join } from "node:path";
import { fsyncDir } from "../storage/files.ts";
import { entityFromComponents, entityKey, isEntityProblem, isQuotaKey, type QuotaEntity, type QuotaKey } from "./entity.ts";

const FILE_VERSION = 1;

export interface QuotaEntry {
  entity: QuotaEntity;
  values: ReadonlyMap<QuotaKey, number>;
}

/** One entity's changes: keys set to a value, or removed (null). */
export interface QuotaChange {
  entity: QuotaEntity;
  ops: ReadonlyMap<QuotaKey, number | null>;
}

interface FileFormat {
  version: number;
  entries: Array<{ entity: QuotaEntity; values: Record<string, number> }>;
}

export class QuotaStoreError extends Error {
  override name = "QuotaStoreError";
}

export class ClientQuotaStore {
  private entries = new Map<string, QuotaEntry>();
  private writing: Promise<void> = Promise.resolve();
  /** Bumped on every applied change, so quota lookups can cache by it. */
  generation = 0;

  private constructor(readonly path: string | null) {}

  static fileIn(dataDir: string): string {
    return join(dataDir, "quotas", "client-quotas.json");
  }

  /** A store that keeps nothing on disk (unit tests). */
  static inMemory(): ClientQuotaStore {
    return new ClientQuotaStore(null);
  }

  /** Loads the quotas of a data dir; a damaged file stops start-up rather than silently dropping quotas. */
  static async open(dataDir: string): Promise<ClientQuotaStore> {
    const store = new ClientQuotaStore(ClientQuotaStore.fileIn(dataDir));
    await mkdir(join(dataDir, "quotas"), { recursive: true, mode: 0o700 });
    let text: string;
    try {
      text = await readFile(ClientQuotaStore.fileIn(dataDir), "utf8");
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return store;
      throw err;
    }
    store.entries = parseFile(ClientQuotaStore.fileIn(dataDir), text);
    return store;
  }

  /** Entities with at least one value. */
  get size(): number {
    return this.entries.size;
  }

  /** The quota values of exactly this entity (undefined: none set). */
  get(entity: QuotaEntity): ReadonlyMap<QuotaKey, number> | undefined {
    return this.entries.get(entityKey(entity))?.values;
  }

  /** Every entity with at least one value, in a stable order. */
  all(): QuotaEntry[] {
    return [...this.entries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, e]) => e);
  }

  /** Applies all changes as one durable step. */
  apply(changes: readonly QuotaChange[]): Promise<void> {
    const run = this.writing.then(async () => {
      const next = new Map<string, QuotaEntry>(this.entries);
      for (const c of changes) {
        const key = entityKey(c.entity);
        const values = new Map(next.get(key)?.values ?? []);
        for (const [k, v] of c.ops) {
          if (v === null) values.delete(k);
          else values.set(k, v);
        }
        if (values.size === 0) next.delete(key);
        else next.set(key, { entity: { ...c.entity }, values });
      }
      if (this.path) await persist(this.path, next);
      this.entries = next;
      this.generation++;
    });
    this.writing = run.catch(() => undefined);
    return run;
  }
}

async function persist(path: string, entries: Map<string, QuotaEntry>): Promise<void> {
  const file: FileFormat = { version: FILE_VERSION, entries: [] };
  for (const [, e] of [...entries].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    file.entries.push({ entity: e.entity, values: Object.fromEntries(e.values) });
  }
  const tmp = `${path}.tmp`;
  const h = await open(tmp, "w", 0o600);
  try {
    await h.writeFile(`${JSON.stringify(file, null, 2)}\n`);
    await h.sync();
  } finally {
    await h.close();
  }
  await rename(tmp, path);
  await fsyncDir(join(path, ".."));
}

function parseFile(path: string, text: string): Map<string, QuotaEntry> {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new QuotaStoreError(`client quota file ${path} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const bad = (what: string) => new QuotaStoreError(`client quota file ${path}: ${what}`);
  if (typeof raw !== "object" || raw === null || !("version" in raw) || !("entries" in raw)) throw bad("expected {version, entries}");
  if (raw.version !== FILE_VERSION) throw bad(`unsupported version ${String(raw.version)}`);
  if (!Array.isArray(raw.entries)) throw bad("entries must be an array");
  const out = new Map<string, QuotaEntry>();
  for (const [i, e] of (raw.entries as unknown[]).entries()) {
    if (typeof e !== "object" || e === null || !("entity" in e) || !("values" in e)) throw bad(`entry ${i}: expected {entity, values}`);
    const ent = e.entity as Record<string, unknown>;
    if (typeof ent !== "object" || ent === null) throw bad(`entry ${i}: entity must be an object`);
    const components = Object.entries(ent).map(([entityType, entityName]) => {
      if (entityName !== null && typeof entityName !== "string") throw bad(`entry ${i}: ${entityType} must be a string or null`);
      return { entityType, entityName };
    });
    const entity = entityFromComponents(components);
    if (isEntityProblem(entity)) throw bad(`entry ${i}: ${entity.message}`);
    const values = new Map<QuotaKey, number>();
    for (const [k, v] of Object.entries(e.values as Record<string, unknown>)) {
      if (!isQuotaKey(k)) throw bad(`entry ${i}: unknown quota key ${k}`);
      if (typeof v !== "number" || !Number.isFinite(v) || v <= 0) throw bad(`entry ${i}: ${k} must be a positive number`);
      values.set(k, v);
    }
    if (values.size > 0) out.set(entityKey(entity), { entity, values });
  }
  return out;
}
