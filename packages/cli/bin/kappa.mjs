#!/usr/bin/env node
// The CLI is TypeScript run through tsx (as the rest of the repo), so `npx kappa`
// works from a fresh clone without a build step.
import { register } from "tsx/esm/api";

register();
const { main } = await import("../src/main.ts");
process.exitCode = await main(process.argv);
