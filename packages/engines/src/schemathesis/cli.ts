/**
 * `npm run schemathesis -w packages/engines -- run <schema> …`: the pinned
 * schemathesis (installed once into the engines cache), with the arguments
 * as given; exits with its exit code.
 */
import { spawn } from "node:child_process";
import { ensureSchemathesis, SCHEMATHESIS_ENTRY } from "./install.ts";

const python = await ensureSchemathesis((line) => console.error(`[engines] ${line}`));
const child = spawn(python, ["-c", SCHEMATHESIS_ENTRY, ...process.argv.slice(2)], { stdio: "inherit", env: { ...process.env, SCHEMATHESIS_TELEMETRY: "false" } });
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => child.kill(signal));
child.on("close", (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
