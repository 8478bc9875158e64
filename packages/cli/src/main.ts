import { writeFileSync } from "node:fs";
import { Command, CommanderError, Option } from "commander";
import { ApiError, PortalClient } from "./client.ts";
import { loadConfig, normalizeUrl, saveConfig } from "./config.ts";
import { readContracts } from "./files.ts";
import { formatOutput, planExitCode, renderPlan, table, type OutputFormat } from "./render.ts";
import { processStdin, readToken, type SecretSource } from "./secret-input.ts";
import type { PlanItem, ProductDetail, ProductSummary } from "./types.ts";

/*
 * `kappa`: the Kappa Mesh CLI. Every command is a few HTTP calls to the
 * portal's /api/v1 with an API token; plan and apply send contract files and
 * print what the portal decided. Exit codes: 0 ok / no change, 1 error,
 * 2 changes (plan only).
 */

interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  env: NodeJS.ProcessEnv;
  sleep: (ms: number) => Promise<void>;
  /** Where `login` reads the token (standard input by default). */
  stdin?: SecretSource;
}

const defaultIo: Io = {
  out: (t) => process.stdout.write(t + "\n"),
  err: (t) => process.stderr.write(t + "\n"),
  env: process.env,
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};

const outputOption = () => new Option("-o, --output <format>", "table, json or yaml").choices(["table", "json", "yaml"]).default("table");

/** A product by id, topic (`orders.order-events.v1`) or contract id (`orders.order-events`, newest major). */
async function resolveProduct(client: PortalClient, ref: string): Promise<ProductDetail> {
  if (!ref.includes(".")) return client.get<ProductDetail>(`/api/v1/products/${encodeURIComponent(ref)}`);
  const found = await client.get<{ items: ProductSummary[] }>(`/api/v1/products?pageSize=100&q=${encodeURIComponent(ref)}`);
  const exact = found.items.find((p) => p.topicName === ref);
  const line = found.items.filter((p) => new RegExp(`^${ref.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\.v\\d+$`).test(p.topicName)).sort((a, b) => b.majorVersion - a.majorVersion)[0];
  const hit = exact ?? line;
  if (!hit) throw new Error(`No product ${ref} that you can see.`);
  return client.get<ProductDetail>(`/api/v1/products/${hit.id}`);
}

function describeProgress(p: ProductDetail): string {
  if (p.status === "IN_REVIEW") return "in review: waiting for a governance reviewer";
  if (p.status === "APPROVED" || p.status === "PROVISIONING") {
    const done = p.provisioning.filter((s) => s.status === "DONE").length;
    const current = p.provisioning.find((s) => s.status !== "DONE");
    return `provisioning ${done}/${p.provisioning.length}${current ? `: ${current.label}${current.lastError ? ` (retrying: ${current.lastError})` : ""}` : ""}`;
  }
  return p.status;
}

/** Waits until each product is ACTIVE (or refused), printing each change of state. */
async function waitForActive(client: PortalClient, io: Io, ids: string[], timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const last = new Map<string, string>();
  const pending = new Set(ids);
  let failed = false;
  while (pending.size > 0) {
    for (const id of [...pending]) {
      const product = await client.get<ProductDetail & { decisionReason?: string | null }>(`/api/v1/products/${id}`);
      const progress = describeProgress(product);
      if (last.get(id) !== progress) {
        io.out(`${product.topicName}: ${progress}`);
        last.set(id, progress);
      }
      if (product.status === "ACTIVE") pending.delete(id);
      if (product.status === "REJECTED") {
        io.err(`${product.topicName} was rejected: ${product.decisionReason ?? "no reason given"}`);
        failed = true;
        pending.delete(id);
      }
    }
    if (pending.size === 0) break;
    if (Date.now() > deadline) {
      io.err(`Timed out after ${Math.round(timeoutMs / 1000)} s waiting for ${[...pending].length} product(s).`);
      return 1;
    }
    await io.sleep(2000);
  }
  return failed ? 1 : 0;
}

export function buildProgram(io: Io, setExit: (code: number) => void): Command {
  const client = () => new PortalClient(loadConfig(io.env));
  const program = new Command("kappa")
    .description("Kappa Mesh from the command line: data products as Open Data Contract Standard files (plan, apply), subscriptions and credentials.")
    .version("0.1.0")
    .showHelpAfterError()
    .configureOutput({ writeOut: (s) => io.out(s.trimEnd()), writeErr: (s) => io.err(s.trimEnd()) })
    .exitOverride();

  program
    .command("login")
    .description(
      "Store the portal URL and an API token (created on the portal's API tokens page) in your config folder, mode 0600. The token is read from standard input (piped) or a prompt that does not echo, never from the command line: `kappa login --url <portal> --with-token < token.txt`.",
    )
    .requiredOption("--url <portal>", "the portal, e.g. http://localhost:3000")
    .option("--with-token", "read the token from standard input (the default when it is piped)")
    .option("--token <token>", "only `-` (read the token from standard input); a token here would be visible to every user of the machine and kept in shell history")
    .action(async (opts: { url: string; token?: string; withToken?: boolean }) => {
      if (opts.token !== undefined && opts.token !== "-") {
        throw new Error("kappa login does not take the token on the command line (other users see it in the process list, and it stays in shell history). Pipe it instead: `kappa login --url <portal> --with-token < token.txt` (or `--token -`).");
      }
      const url = normalizeUrl(opts.url);
      const token = await readToken(io.stdin ?? processStdin);
      const config = { url, token };
      const me = await new PortalClient(config).get<{ email: string }>("/api/v1/me");
      const file = saveConfig(config, io.env);
      io.out(`Logged in to ${config.url} as ${me.email}; saved in ${file}.`);
    });

  program
    .command("plan")
    .description("Show what applying the contract file(s) would change, per product, with the policy verdicts. Files of domains your token may not change are skipped (with the reason). Exit 0: none of your products would change, 2: changes, 1: error.")
    .requiredOption("-f, --file <path>", "a contract file or a folder of them (.yaml, .yml, .json)")
    .addOption(outputOption())
    .action(async (opts: { file: string; output: OutputFormat }) => {
      const { items } = await client().post<{ items: PlanItem[] }>("/api/v1/contracts/plan", { contracts: readContracts(opts.file) });
      io.out(formatOutput({ items }, opts.output, () => renderPlan(items)));
      setExit(planExitCode(items));
    });

  program
    .command("apply")
    .description("Plan, then submit the changes through the portal (validation, policies, review, provisioning). Applying twice is a no-op.")
    .requiredOption("-f, --file <path>", "a contract file or a folder of them")
    .option("--new-major-version", "create the new major versions the plan shows (each goes to review; the current version is deprecated only when the new one is approved)")
    .option("--sunset <date>", "with --new-major-version: the sunset the current version gets when the new one is approved (YYYY-MM-DD; default: the policy's notice from the approval)")
    .option("--wait", "wait, with progress, until each created product is ACTIVE on Kafka (after review and provisioning)")
    .option("--timeout <seconds>", "how long --wait waits", "900")
    .addOption(outputOption())
    .action(async (opts: { file: string; newMajorVersion?: boolean; sunset?: string; wait?: boolean; timeout: string; output: OutputFormat }) => {
      if (opts.sunset !== undefined && !opts.newMajorVersion) throw new Error("--sunset applies to a new major version: add --new-major-version.");
      if (opts.sunset !== undefined && (!/^\d{4}-\d{2}-\d{2}$/.test(opts.sunset) || Number.isNaN(Date.parse(`${opts.sunset}T00:00:00Z`)))) throw new Error(`--sunset is a date (YYYY-MM-DD), not "${opts.sunset}".`);
      const portal = client();
      const contracts = readContracts(opts.file);
      const planned = await portal.post<{ items: PlanItem[] }>("/api/v1/contracts/plan", { contracts });
      if (planExitCode(planned.items) === 1) {
        io.out(formatOutput(planned, opts.output, () => renderPlan(planned.items)));
        io.err("Nothing was applied: fix the errors above.");
        return setExit(1);
      }
      const majors = planned.items.filter((i) => i.action === "new-major-version");
      if (majors.length > 0 && !opts.newMajorVersion) {
        io.out(formatOutput(planned, opts.output, () => renderPlan(planned.items)));
        io.err(
          `Nothing was applied: ${majors.map((i) => `${i.contractId ?? i.source ?? "a file"} needs a new major version (${i.targetTopic ?? "a new topic"})`).join("; ")}. ` +
            "Run again with --new-major-version to create it in review; the current version stays as it is until it is approved.",
        );
        return setExit(1);
      }
      const toApply = planned.items.filter((i) => i.action !== "skipped" && (i.action !== "no-change" || i.status === "DRAFT"));
      if (toApply.length === 0) {
        io.out(formatOutput(planned, opts.output, () => `${renderPlan(planned.items)}\nNo changes: nothing to apply.`));
        return setExit(0);
      }
      const applied = await portal.post<{ items: PlanItem[] }>("/api/v1/contracts", {
        contracts,
        ...(opts.newMajorVersion ? { allowNewMajorVersion: true } : {}),
        ...(opts.sunset ? { sunsetAt: `${opts.sunset}T00:00:00Z` } : {}),
      });
      io.out(formatOutput(applied, opts.output, () => renderPlan(applied.items)));
      if (applied.items.some((i) => i.refusal)) return setExit(1);
      if (opts.wait) {
        const ids = applied.items.filter((i) => i.applied && i.productId && (i.action === "create" || i.status === "IN_REVIEW")).map((i) => i.productId ?? "");
        return setExit(await waitForActive(portal, io, ids, Number(opts.timeout) * 1000));
      }
      setExit(0);
    });

  const get = program.command("get").description("List or show catalog entries.");
  get
    .command("products")
    .description("Products you can see (search with -q).")
    .option("-q, --query <text>", "search text")
    .addOption(outputOption())
    .action(async (opts: { query?: string; output: OutputFormat }) => {
      const page = await client().get<{ items: ProductSummary[]; total: number }>(`/api/v1/products?pageSize=100${opts.query ? `&q=${encodeURIComponent(opts.query)}` : ""}`);
      io.out(formatOutput(page, opts.output, () => table(["TOPIC", "NAME", "STATUS", "CLASSIFICATION", "ID"], page.items.map((p) => [p.topicName, p.name, p.status, p.classification, p.id]))));
    });
  get
    .command("product")
    .description("One product by id, topic or contract id.")
    .argument("<product>", "id, topic (orders.order-events.v1) or contract id (orders.order-events)")
    .addOption(outputOption())
    .action(async (ref: string, opts: { output: OutputFormat }) => {
      const p = await resolveProduct(client(), ref);
      io.out(
        formatOutput(p, opts.output, () =>
          table(
            ["FIELD", "VALUE"],
            [
              ["id", p.id],
              ["name", p.name],
              ["topic", p.topicName],
              ["status", describeProgress(p)],
              ["classification", p.classification],
              ["partitions", p.partitions],
              ["retention.ms", p.retentionMs],
              ["schema", p.schemaVersions.map((v) => `v${v.version} ${v.format} ${v.status}`).join(", ")],
              ["contract", p.contractSource ?? "(edited in the portal)"],
            ],
          ),
        ),
      );
    });
  get
    .command("subscriptions")
    .description("Subscriptions of your domains, both ways.")
    .addOption(outputOption())
    .action(async (opts: { output: OutputFormat }) => {
      type Sub = { id: string; status: string; purpose: string; serviceAccount: { name: string }; product: { topicName: string }; consumingDomain?: { slug: string } };
      const domains = await client().get<{ slug: string; subscriptions: Sub[]; incomingSubscriptions: Sub[] }[]>("/api/v1/my-domains");
      const rows = domains.flatMap((d) => [
        ...d.subscriptions.map((s) => ({ direction: "out", domain: d.slug, ...s })),
        ...d.incomingSubscriptions.map((s) => ({ direction: "in", domain: d.slug, ...s })),
      ]);
      io.out(formatOutput(rows, opts.output, () => table(["DIR", "DOMAIN", "ACCOUNT", "TOPIC", "STATUS", "ID"], rows.map((r) => [r.direction, r.domain, r.serviceAccount.name, r.product.topicName, r.status, r.id]))));
    });

  program
    .command("subscribe")
    .description("Request read access to a product for one of your domain's service accounts.")
    .argument("<product>", "id, topic or contract id")
    .requiredOption("--account <name>", "the service account (Kafka user) that will read")
    .requiredOption("--purpose <text>", "why you need the data (reviewers see it)")
    .addOption(outputOption())
    .action(async (ref: string, opts: { account: string; purpose: string; output: OutputFormat }) => {
      const portal = client();
      const product = await resolveProduct(portal, ref);
      const accounts = await portal.get<{ id: string; name: string }[]>("/api/v1/service-accounts");
      const account = accounts.find((a) => a.name === opts.account);
      if (!account) throw new Error(`No service account ${opts.account} in your domains (have: ${accounts.map((a) => a.name).join(", ") || "none"}).`);
      const sub = await portal.post<{ id: string; status: string }>("/api/v1/subscriptions", { productId: product.id, serviceAccountId: account.id, purpose: opts.purpose });
      io.out(formatOutput(sub, opts.output, () => `Subscription ${sub.id}: ${sub.status} (User:${account.name} → ${product.topicName}).`));
    });

  program
    .command("credentials")
    .description("Reveal a service account's issued password, once (a second call is refused; rotate in the portal).")
    .argument("<account>", "the service account name")
    .addOption(outputOption())
    .action(async (name: string, opts: { output: OutputFormat }) => {
      const portal = client();
      const domains = await portal.get<{ serviceAccounts: { id: string; name: string }[] }[]>("/api/v1/my-domains");
      const account = domains.flatMap((d) => d.serviceAccounts).find((a) => a.name === name);
      if (!account) throw new Error(`No service account ${name} in your domains.`);
      const secret = await portal.post<{ username: string; password: string; mechanism: string }>(`/api/v1/service-accounts/${account.id}/credentials/reveal`);
      io.out(formatOutput(secret, opts.output, () => table(["USERNAME", "MECHANISM", "PASSWORD"], [[secret.username, secret.mechanism, secret.password]]) + "\nShown once: store it now."));
    });

  program
    .command("contract")
    .description("Data contract files.")
    .command("export")
    .description("Print (or write) a product's ODCS v3 contract.")
    .argument("<product>", "id, topic or contract id")
    .addOption(new Option("-o, --output <format>", "yaml or json").choices(["yaml", "json"]).default("yaml"))
    .option("--out <file>", "write to a file instead of printing")
    .action(async (ref: string, opts: { output: "yaml" | "json"; out?: string }) => {
      const portal = client();
      const product = await resolveProduct(portal, ref);
      const text =
        opts.output === "yaml"
          ? await portal.get<string>(`/api/v1/products/${product.id}/contract`, "application/yaml")
          : JSON.stringify(await portal.get(`/api/v1/products/${product.id}/contract`), null, 2) + "\n";
      if (opts.out) {
        writeFileSync(opts.out, text);
        io.out(`Wrote ${opts.out}.`);
      } else io.out(text.trimEnd());
    });

  return program;
}

/** Runs the CLI; returns the exit code. */
export async function main(argv: string[], io: Io = defaultIo): Promise<number> {
  let code = 0;
  const program = buildProgram(io, (c) => {
    code = c;
  });
  try {
    await program.parseAsync(argv);
    return code;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 1;
    io.err(error instanceof ApiError ? `Error (${error.status} ${error.code}): ${error.message}` : `Error: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}
