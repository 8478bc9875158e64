import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { expect } from "@playwright/test";
import { Kafka, logLevel } from "kafkajs";
import { parse, stringify } from "yaml";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * The `kappa` CLI against the real portal, worker and broker (the worker
 * project: KAPPA_E2E_WORKER=1). A product is published from a contract file
 * in a folder: plan shows the diff, apply --wait follows review and
 * provisioning until the topic exists on the broker, a second apply is a
 * no-op, and a breaking schema in the file plans a new major version.
 */

const REPO = path.resolve(import.meta.dirname, "../../..");
const KAPPA = path.join(REPO, "packages", "cli", "bin", "kappa.mjs");
const run = Date.now().toString(36);
const name = `Cli Parcels ${run}`;
const contractId = `orders.cli-parcels-${run}`;
const topic = `${contractId}.v1`;

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `kappa` as a user would: a child process with its own config folder; `input` is its standard input (`login` reads the token there). */
function kappa(args: string[], env: Record<string, string>, onStdout?: (text: string) => void, input = ""): Promise<Result> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [KAPPA, ...args], { cwd: REPO, env: { ...process.env, ...env, KAPPA_URL: "", KAPPA_TOKEN: "" } });
    child.stdin.end(input);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d.toString();
      onStdout?.(stdout);
    });
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

test.describe.serial("kappa CLI against the real portal", () => {
  test.setTimeout(300_000);
  const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-cli-e2e-"));
  const contractsDir = path.join(dir, "contracts");
  const file = path.join(contractsDir, `${contractId}.odcs.yaml`);
  const ownerEnv = { XDG_CONFIG_HOME: path.join(dir, "owner-config") };
  const payerEnv = { XDG_CONFIG_HOME: path.join(dir, "payer-config") };

  test("login, plan (create), apply --wait through review to ACTIVE on the broker, second apply is a no-op", async ({ browser, baseURL }) => {
    const owner = await as(browser, "ordersOwner");
    const { token } = (await (await owner.request.post("/api/v1/tokens", { data: { name: `cli ${run}`, scopes: ["read", "write:orders"], expiresInDays: 1 } })).json()) as { token: string };
    const login = await kappa(["login", "--url", baseURL ?? "", "--with-token"], ownerEnv, undefined, `${token}\n`);
    expect(login.stderr).toBe("");
    expect(login.stdout).toContain("Logged in to");
    expect(login.code).toBe(0);

    // The contract file: the demo Order Events contract, exported by the CLI, renamed.
    const exported = await kappa(["contract", "export", "orders.order-events"], ownerEnv);
    expect(exported.code).toBe(0);
    const contract = parse(exported.stdout) as Record<string, unknown> & { customProperties: { property: string; value: unknown }[]; schema: { customProperties: { property: string; value: unknown }[] }[] };
    Object.assign(contract, { id: contractId, name, dataProduct: name, description: { purpose: "Parcel scans published from a contract file by the kappa CLI." } });
    contract.customProperties = contract.customProperties.map((p) => (p.property === "partitions" ? { ...p, value: 2 } : p));
    mkdirSync(contractsDir, { recursive: true });
    writeFileSync(file, stringify(contract));

    const plan = await kappa(["plan", "-f", contractsDir], ownerEnv);
    expect(plan.stdout).toContain(`+ ${contractId}: create (${topic})`);
    expect(plan.stdout).toContain("+ partitions: 2");
    expect(plan.stdout).toMatch(/policy v\d+: 0 fail/);
    expect(plan.code).toBe(2);

    // apply --wait: approve as governance once it reports the review.
    const reviewer = await as(browser, "reviewer");
    let approved = false;
    const apply = kappa(["apply", "-f", contractsDir, "--wait", "--timeout", "240"], ownerEnv, (out) => {
      if (!approved && out.includes(`${topic}: in review`)) {
        approved = true;
        void (async () => {
          const found = (await (await reviewer.request.get(`/api/v1/products?q=${encodeURIComponent(topic)}`)).json()) as { items: { id: string; topicName: string }[] };
          const id = found.items.find((p) => p.topicName === topic)?.id ?? "";
          expect((await reviewer.request.post(`/api/v1/products/${id}/approve`)).status()).toBe(200);
        })();
      }
    });
    const applied = await apply;
    expect(applied.stderr).toBe("");
    expect(applied.stdout).toContain(`${topic}: in review: waiting for a governance reviewer`);
    expect(applied.stdout).toContain(`${topic}: ACTIVE`);
    expect(applied.code).toBe(0);

    // On the cluster (the embedded broker or Apache Kafka's three nodes, playwright.config.ts): the topic with the file's two partitions.
    const kafka = new Kafka({
      clientId: "kappa-e2e-cli-check",
      brokers: (process.env.KAPPA_E2E_KAFKA_BOOTSTRAP ?? "").split(","),
      sasl: { mechanism: "scram-sha-512", username: "kappa-admin", password: "kappa-dev-secret" },
      logLevel: logLevel.NOTHING,
    });
    const admin = kafka.admin();
    await admin.connect();
    try {
      const metadata = await admin.fetchTopicMetadata({ topics: [topic] });
      expect(metadata.topics[0]?.partitions).toHaveLength(2);
    } finally {
      await admin.disconnect();
    }

    const again = await kappa(["apply", "-f", contractsDir], ownerEnv);
    expect(again.stdout).toContain(`= ${contractId}: no change`);
    expect(again.stdout).toContain("No changes: nothing to apply.");
    expect(again.code).toBe(0);
    expect((await kappa(["plan", "-f", file], ownerEnv)).code).toBe(0);

    // The portal shows the same contract and says where it comes from.
    const product = await kappa(["get", "product", contractId, "-o", "json"], ownerEnv);
    const detail = JSON.parse(product.stdout) as { id: string; status: string; contractSource: string };
    expect(detail.status).toBe("ACTIVE");
    expect(detail.contractSource).toContain(`${contractId}.odcs.yaml`);
    await owner.goto(`/products/${detail.id}`);
    await expect(owner.getByTestId("contract-managed")).toContainText(`${contractId}.odcs.yaml`);
    const portalContract = parse(await (await owner.request.get(`/api/v1/products/${detail.id}/contract`, { headers: { accept: "application/yaml" } })).text()) as { id: string; name: string };
    expect(portalContract).toMatchObject({ id: contractId, name });
  });

  test("a breaking schema in the file plans a new major version; metadata changes plan field by field", async () => {
    const contract = parse(readFileSync(file, "utf8")) as { description: { purpose: string }; schema: { properties?: unknown[]; customProperties: { property: string; value: unknown }[] }[] };
    contract.description.purpose = "Parcel scans published from a contract file, now with the scan time.";
    writeFileSync(file, stringify(contract));
    const update = await kappa(["plan", "-f", file], ownerEnv);
    expect(update.stdout).toContain(`~ ${contractId}: update (${topic})`);
    expect(update.stdout).toContain('~ description: "Parcel scans published from a contract file by the kappa CLI." -> "Parcel scans published from a contract file, now with the scan time."');
    expect(update.code).toBe(2);

    const object = contract.schema[0];
    if (!object) throw new Error("no schema object");
    const physical = object.customProperties.find((p) => p.property === "schema");
    if (!physical) throw new Error("no physical schema");
    const avro = physical.value as { fields: object[] };
    avro.fields.push({ name: "scannedBy", type: "string" });
    object.properties = [];
    writeFileSync(file, stringify(contract));
    const breaking = await kappa(["plan", "-f", file], ownerEnv);
    expect(breaking.stdout).toContain(`+ ${contractId}: new major version (${contractId}.v2)`);
    expect(breaking.stdout).toContain("schema: INCOMPATIBLE under BACKWARD");
    expect(breaking.stdout).toContain("scannedBy");
    expect(breaking.code).toBe(2);
  });

  test("subscribe, approve, one-time credentials, list subscriptions and bad input from the CLI", async ({ browser, baseURL }) => {
    const payer = await as(browser, "paymentsOwner");
    const { token } = (await (await payer.request.post("/api/v1/tokens", { data: { name: `cli payer ${run}`, scopes: ["read", "write:payments"], expiresInDays: 1 } })).json()) as { token: string };
    expect((await kappa(["login", "--url", baseURL ?? "", "--with-token"], payerEnv, undefined, `${token}\n`)).code).toBe(0);
    const me = (await (await payer.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
    // Sorted after payments-reconciliation: the worker journey (same database, runs next) picks the
    // first account of the subscribe form and must not get this one, whose password the CLI reveals.
    const account = `payments-x-cli-${run}`;
    const created = await payer.request.post("/api/v1/service-accounts", { data: { domainId: me.memberships.find((m) => m.domainSlug === "payments")?.domainId, name: account } });
    expect(created.status()).toBe(201);

    const sub = await kappa(["subscribe", contractId, "--account", account, "--purpose", "Match parcel scans with refund claims for disputes."], payerEnv);
    expect(sub.stderr).toBe("");
    expect(sub.stdout).toMatch(new RegExp(`Subscription \\S+: REQUESTED \\(User:${account} → ${topic.replace(/\./g, "\\.")}\\)`));
    const subscriptionId = /Subscription (\S+):/.exec(sub.stdout)?.[1] ?? "";
    const owner = await as(browser, "ordersOwner");
    expect((await owner.request.post(`/api/v1/subscriptions/${subscriptionId}/approve`)).status()).toBe(200);

    // The worker issues the account's SCRAM credentials with the grant; the CLI shows them once.
    let revealed: Result = { code: 1, stdout: "", stderr: "" };
    await expect
      .poll(async () => {
        revealed = await kappa(["credentials", account, "-o", "json"], payerEnv);
        return revealed.code === 0 ? "shown" : revealed.stderr;
      }, { timeout: 60_000, intervals: [1000] })
      .toBe("shown");
    expect(JSON.parse(revealed.stdout)).toMatchObject({ username: account, mechanism: "SCRAM-SHA-512", password: expect.stringMatching(/.{16,}/) });
    const second = await kappa(["credentials", account], payerEnv);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("SECRET_NOT_AVAILABLE");

    const list = await kappa(["get", "subscriptions"], payerEnv);
    expect(list.stdout).toMatch(new RegExp(`out\\s+payments\\s+${account}\\s+${topic.replace(/\./g, "\\.")}\\s+(APPROVED|ACTIVE)`));
    const short = await kappa(["subscribe", contractId, "--account", account, "--purpose", "too short"], payerEnv);
    expect(short.code).toBe(1);
    expect(short.stderr).toMatch(/Error \((400|409|422)/);
    const bogus = await kappa(["get", "products"], { XDG_CONFIG_HOME: path.join(dir, "nobody") });
    expect(bogus.code).toBe(1);
    expect(bogus.stderr).toContain("Not logged in");
  });
});
