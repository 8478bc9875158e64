/*
 * The worker as `npm start` runs it: one ES module bundled by esbuild from
 * packages/worker/src/main.ts and our own packages (catalog, kafka-protocol),
 * kept in packages/worker/.build/ and reused while none of its sources changed.
 *
 * Why: under tsx every start resolved and loaded ~250 TypeScript files through
 * its loader hooks before the worker's first line, and that was the longest
 * step of a restart (1.6 s on a quiet machine, over 10 s at load 28). The
 * bundle loads as one file; npm packages stay external and load from
 * node_modules as before.
 *
 * Staying correct when sources change: the stamp next to the bundle lists the
 * SHA-1 of every file esbuild read (from its metafile) plus the files that
 * steer resolution (package.json, tsconfig); one differing hash, a missing
 * file, another esbuild version or another bundle format means a new bundle. A
 * new file can only enter through an import in a file already listed, whose
 * hash then changes. Anything unexpected (esbuild missing, a build error, an
 * npm package that the bundle would resolve to another copy than its importer
 * does) falls back to running the sources under tsx, as before.
 */
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

/** Bump when the bundle's options change, so an old bundle is not reused. */
const BUNDLE_FORMAT = 1;

export interface WorkerCommand {
  /** Arguments for process.execPath. */
  args: string[];
  /** "cached" (the bundle was up to date), "bundled" (built now, with its time) or "tsx" (fallback, with the reason). */
  how: "cached" | "bundled" | "tsx";
  detail?: string;
}

interface Stamp {
  format: number;
  esbuild: string;
  /** Repository-relative path → SHA-1 of its content. */
  inputs: Record<string, string>;
}

function sha1(file: string): string | null {
  try {
    return createHash("sha1").update(readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
}

/** Files outside the import graph that decide how it resolves and compiles. */
function steeringFiles(repoRoot: string): string[] {
  const packages = ["broker", "catalog", "kafka-protocol", "worker"].flatMap((p) => [`packages/${p}/package.json`, `packages/${p}/tsconfig.json`]);
  return ["package.json", "tsconfig.json", "tsconfig.base.json", ...packages].filter((f) => existsSync(path.join(repoRoot, f)));
}

function upToDate(repoRoot: string, stampFile: string, bundle: string, esbuildVersion: string): boolean {
  if (!existsSync(bundle) || !existsSync(stampFile)) return false;
  let stamp: Stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, "utf8")) as Stamp;
  } catch {
    return false;
  }
  if (stamp.format !== BUNDLE_FORMAT || stamp.esbuild !== esbuildVersion) return false;
  for (const f of steeringFiles(repoRoot)) if (!(f in stamp.inputs)) return false;
  return Object.entries(stamp.inputs).every(([file, hash]) => sha1(path.join(repoRoot, file)) === hash);
}

/** The node_modules folder a bare import from `dir` finds `pkg` in (Node's lookup walks up the folders). */
function packageDirFrom(dir: string, pkg: string): string | null {
  for (let d = dir; ; d = path.dirname(d)) {
    const candidate = path.join(d, "node_modules", pkg);
    if (existsSync(candidate)) return candidate;
    if (path.dirname(d) === d) return null;
  }
}

function packageName(specifier: string): string {
  const parts = specifier.split("/");
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : (parts[0] ?? specifier);
}

/**
 * Returns how to start the worker: the bundle (built now if a source changed)
 * or, if it cannot be built, the sources under tsx.
 */
export function workerCommand(repoRoot: string): Promise<WorkerCommand> {
  return bundledCommand(repoRoot, path.join(repoRoot, "packages", "worker", "src", "main.ts"), path.join(repoRoot, "packages", "worker", ".build"));
}

/**
 * The same for any of our TypeScript entry points run as a child process
 * (`npm start` also runs the PostgreSQL supervisor this way). `outDir` sits
 * next to the entry's package, so npm packages resolve as they do from there.
 */
export async function bundledCommand(repoRoot: string, entry: string, outDir: string): Promise<WorkerCommand> {
  const tsx: WorkerCommand = { args: ["--import", "tsx", entry], how: "tsx" };
  const bundle = path.join(outDir, "main.mjs");
  const stampFile = path.join(outDir, "stamp.json");
  const run = { args: ["--enable-source-maps", bundle] };
  let esbuild: typeof import("esbuild");
  try {
    esbuild = await import("esbuild");
  } catch (error) {
    return { ...tsx, detail: `esbuild is not installed (${String(error)})` };
  }
  if (upToDate(repoRoot, stampFile, bundle, esbuild.version)) return { ...run, how: "cached" };

  const started = Date.now();
  const mismatched: string[] = [];
  // Hashes of what the build actually read (a file saved during the build makes the next start build again).
  const inputs: Record<string, string> = {};
  for (const f of steeringFiles(repoRoot)) {
    const hash = sha1(path.join(repoRoot, f));
    if (hash) inputs[f] = hash;
  }
  // Built in a folder of its own, then moved into place: a start running
  // alongside reads either the old bundle or the new one, never half of one.
  const tmpDir = path.join(outDir, `tmp-${process.pid}`);
  try {
    mkdirSync(tmpDir, { recursive: true });
    const result = await esbuild.build({
      absWorkingDir: repoRoot,
      entryPoints: [entry],
      outfile: path.join(tmpDir, "main.mjs"),
      bundle: true,
      platform: "node",
      format: "esm",
      target: `node${process.versions.node.split(".")[0]}`,
      sourcemap: "linked",
      metafile: true,
      logLevel: "silent",
      // CommonJS packages inside the bundle call require(); an ES module has none.
      banner: { js: 'import { createRequire as __kappaCreateRequire } from "node:module"; const require = __kappaCreateRequire(import.meta.url);' },
      plugins: [
        {
          name: "kappa-worker",
          setup(build) {
            // Our packages are bundled; every npm package stays an import, resolved from the bundle's folder.
            build.onResolve({ filter: /^[^./]/ }, (args) => {
              if (args.path.startsWith("@kappa/") || args.path.startsWith("node:")) return undefined;
              const pkg = packageName(args.path);
              if (packageDirFrom(args.resolveDir, pkg) !== packageDirFrom(outDir, pkg)) mismatched.push(`${pkg} (imported by ${path.relative(repoRoot, args.importer)})`);
              return { path: args.path, external: true };
            });
            // A module that finds files next to itself (the default policy, the migrations) keeps its own location.
            build.onLoad({ filter: /\.ts$/ }, async (args) => {
              const raw = await readFile(args.path);
              inputs[path.relative(repoRoot, args.path)] = createHash("sha1").update(raw).digest("hex");
              const source = raw
                .toString("utf8")
                .replaceAll("import.meta.url", JSON.stringify(pathToFileURL(args.path).href))
                .replaceAll("import.meta.dirname", JSON.stringify(path.dirname(args.path)))
                .replaceAll("import.meta.filename", JSON.stringify(args.path));
              return { contents: source, loader: "ts" };
            });
          },
        },
      ],
    });
    if (mismatched.length > 0) return { ...tsx, detail: `the bundle would load another copy of ${mismatched.join(", ")}` };
    for (const file of Object.keys(result.metafile.inputs)) {
      if (file in inputs) continue;
      const hash = sha1(path.join(repoRoot, file));
      if (hash) inputs[file] = hash;
    }
    renameSync(path.join(tmpDir, "main.mjs.map"), `${bundle}.map`);
    renameSync(path.join(tmpDir, "main.mjs"), bundle);
    writeFileSync(stampFile, JSON.stringify({ format: BUNDLE_FORMAT, esbuild: esbuild.version, inputs } satisfies Stamp));
    return { ...run, how: "bundled", detail: `${Date.now() - started} ms` };
  } catch (error) {
    return { ...tsx, detail: `bundling failed: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}` };
  } finally {
    rmSync(tmpDir, { recursive: true, force: true });
  }
}
