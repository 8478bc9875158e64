/**
 * `npm run kafka:apache -- --nodes 3` (or `--nodes 1`): Apache Kafka from the
 * pinned release, on 127.0.0.1, in the data folder, until Ctrl-C. Prints the
 * bootstrap line and the admin login; the same cluster (data, ports,
 * password) comes back on the next start of the same folder.
 */
import { randomBytes } from "node:crypto";
import { existsSync, readFileSync, writeFileSync, mkdirSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { EngineUnavailableError } from "../tools.ts";
import { startApacheKafka } from "./cluster.ts";

const { values } = parseArgs({
  options: {
    nodes: { type: "string", default: "3" },
    "data-dir": { type: "string" },
    "admin-user": { type: "string", default: process.env.KAFKA_ADMIN_USER ?? "kappa-admin" },
    override: { type: "string", multiple: true, default: [] },
    help: { type: "boolean", short: "h" },
  },
});

if (values.help) {
  console.log(`usage: npm run kafka:apache -- [--nodes 1|3] [--data-dir DIR] [--admin-user NAME] [--override key=value]…
  Starts Apache Kafka (KRaft, SASL/SCRAM-SHA-512, StandardAuthorizer, tiered storage) on 127.0.0.1.
  Data in DIR (default $KAPPA_DATA_DIR/apache-kafka-<n>-node, KAPPA_DATA_DIR defaulting to .data).
  The admin password: KAFKA_ADMIN_PASSWORD, else one generated at the first start and kept in DIR.`);
  process.exit(0);
}

const nodes = Number(values.nodes);
if (nodes !== 1 && nodes !== 3) {
  console.error(`--nodes must be 1 or 3 (got ${values.nodes})`);
  process.exit(2);
}
const overrides: Record<string, string> = {};
for (const o of values.override) {
  const eq = o.indexOf("=");
  if (eq <= 0) {
    console.error(`--override wants key=value (got ${o})`);
    process.exit(2);
  }
  overrides[o.slice(0, eq)] = o.slice(eq + 1);
}

const repoRoot = path.resolve(import.meta.dirname, "../../../..");
const dataDir = path.resolve(values["data-dir"] ?? path.join(process.env.KAPPA_DATA_DIR ?? path.join(repoRoot, ".data"), `apache-kafka-${nodes}-node`));
mkdirSync(dataDir, { recursive: true });
const passwordFile = path.join(dataDir, "admin-password");
const adminPassword = process.env.KAFKA_ADMIN_PASSWORD ?? (existsSync(passwordFile) ? readFileSync(passwordFile, "utf8").trim() : randomBytes(18).toString("base64url"));
if (!process.env.KAFKA_ADMIN_PASSWORD) writeFileSync(passwordFile, adminPassword + "\n", { mode: 0o600 });

try {
  const cluster = await startApacheKafka({ nodes, dataDir, adminUser: values["admin-user"], adminPassword, overrides, log: (line) => console.log(`[kafka:apache] ${line}`) });
  console.log(`bootstrap ${cluster.bootstrap}`);
  console.log(`admin ${cluster.adminUser} password ${process.env.KAFKA_ADMIN_PASSWORD ? "(KAFKA_ADMIN_PASSWORD)" : `in ${passwordFile}`} (SASL_PLAINTEXT, SCRAM-SHA-512; PLAIN for the admin too)`);
  console.log(`Apache Kafka ${cluster.version}, ${nodes} node(s), tiered storage in ${cluster.remoteDir}; node logs in ${dataDir}/node-*/server.log. Ctrl-C stops it.`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    console.log("[kafka:apache] stopping (controlled shutdown)…");
    await cluster.stop();
    console.log("[kafka:apache] stopped");
    process.exit(0);
  };
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  for (const node of cluster.nodes) {
    const check = setInterval(() => {
      if (!stopping && !node.running()) {
        console.error(`[kafka:apache] node ${node.id} exited; its log: ${node.logFile}`);
        clearInterval(check);
      }
    }, 1000);
  }
} catch (error) {
  console.error(`[kafka:apache] ${error instanceof Error ? error.message : String(error)}`);
  process.exit(error instanceof EngineUnavailableError ? 3 : 1);
}
