import { spawn } from "node:child_process";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** The repository root, where prisma.config.ts and prisma/migrations live. */
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");

/**
 * Applies the committed migrations with `prisma migrate deploy` (WASM schema
 * engine over node-postgres, see prisma.config.ts): idempotent, each migration
 * in one transaction.
 */
export async function migrateDatabase(databaseUrl: string, log: (line: string) => void = () => {}): Promise<void> {
  const prismaCli = path.join(REPO_ROOT, "node_modules", "prisma", "build", "index.js");
  await new Promise<void>((resolve, reject) => {
    const child = spawn(process.execPath, [prismaCli, "migrate", "deploy"], {
      cwd: REPO_ROOT,
      env: { ...process.env, DATABASE_URL: databaseUrl, PRISMA_HIDE_UPDATE_MESSAGE: "1", CHECKPOINT_DISABLE: "1" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    const collect = (chunk: Buffer) => {
      output += chunk.toString();
      for (const line of chunk.toString().split("\n")) if (line.trim()) log(line);
    };
    child.stdout.on("data", collect);
    child.stderr.on("data", collect);
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve() : reject(new Error(`prisma migrate deploy failed (exit ${code}):\n${output.slice(-4000)}`))));
  });
}
