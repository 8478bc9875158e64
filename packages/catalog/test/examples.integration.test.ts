import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parse, stringify } from "yaml";
import { seedDemoData } from "../../../prisma/seed.ts";
import { getProduct, loadActor, odcsProblems, planContracts, productContract, subjectVersion, type Db } from "../src/index.ts";
import { openTestDatabase } from "./fixtures.ts";

/*
 * examples/contracts/ holds the ODCS contract of every demo product, as the
 * portal exports it. This test keeps them true: each file equals the export
 * of the seeded product (KAPPA_UPDATE_EXAMPLES=1 rewrites them), is valid
 * ODCS, and plans as "no change" against the demo catalog.
 */

const DIR = path.resolve(import.meta.dirname, "../../../examples/contracts");
const BOOTSTRAP = { bootstrap: "127.0.0.1:9092" };

let db: Db;
let dispose: () => Promise<void>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  await seedDemoData(db);
});
afterAll(async () => dispose());

/** The export without what differs per run (the registration time). */
async function exportedDemo(): Promise<Map<string, string>> {
  const reviewer = await loadActor(db, (await db.user.findUniqueOrThrow({ where: { email: "reviewer@governance.example" } })).id);
  const products = await db.dataProduct.findMany({ orderBy: { topicName: "asc" } });
  const files = new Map<string, string>();
  for (const p of products) {
    const { contractCreatedTs: _ts, ...contract } = await productContract(db, reviewer, p.id, BOOTSTRAP);
    files.set(`${contract.id}.odcs.yaml`, `# ODCS v3.1.0 contract of the demo product "${p.name}" (exported by Kappa Mesh).\n${stringify(contract, { lineWidth: 0 })}`);
  }
  return files;
}

describe("the demo's data contract (issue 29)", () => {
  it("Order Events carries non-negative-total (on write, action DLQ), so it has the dead-letter topic orders.order-events.v1.dlq", async () => {
    const product = await db.dataProduct.findUniqueOrThrow({ where: { topicName: "orders.order-events.v1" }, include: { qualityRules: true } });
    expect(product.status).toBe("APPROVED");
    expect(product.qualityRules.map((r) => ({ name: r.name, kind: r.kind, expression: r.expression, mode: r.mode, onFailure: r.onFailure }))).toEqual([
      { name: "non-negative-total", kind: "CEL", expression: "message.totalCents >= 0", mode: "WRITE", onFailure: "DLQ" },
    ]);
    const owner = await loadActor(db, (await db.user.findUniqueOrThrow({ where: { email: "owner@orders.example" } })).id);
    expect((await getProduct(db, owner, product.id)).dlqTopic).toBe("orders.order-events.v1.dlq");
  });

  it("Order Events' customerId is tagged PII and encrypted: the registry serves the tag and the ENCRYPT rule after non-negative-total", async () => {
    const product = await db.dataProduct.findUniqueOrThrow({ where: { topicName: "orders.order-events.v1" } });
    expect({ classification: product.classification, encryptPii: product.encryptPii }).toEqual({ classification: "CONFIDENTIAL", encryptPii: true });
    // What @confluentinc/schemaregistry's serializer gets for the subject (the demo traffic uses it with useLatestVersion).
    const producer = await db.serviceAccount.findFirstOrThrow({ where: { domainId: product.domainId, isProducer: true } });
    const caller = { kind: "serviceAccount" as const, account: { id: producer.id, name: producer.name, domainId: producer.domainId, isProducer: true } };
    const served = (await subjectVersion(db, caller, "orders.order-events.v1-value", "latest")) as { metadata: { tags: Record<string, string[]> }; ruleSet: { domainRules: { name: string; type: string; tags?: string[]; params?: Record<string, string> }[] } };
    expect(served.metadata.tags).toEqual({ "example.orders.OrderPlaced.customerId": ["PII"] });
    expect(served.ruleSet.domainRules.map((r) => [r.name, r.type, r.tags ?? [], r.params?.["dlq.topic"] ?? r.params?.["encrypt.kek.name"]])).toEqual([
      ["non-negative-total", "CEL", [], "orders.order-events.v1.dlq"],
      ["encrypt-pii", "ENCRYPT", ["PII"], "kappa-orders"],
    ]);
  });
});

describe("examples/contracts", () => {
  it("holds the export of every demo product", async () => {
    const files = await exportedDemo();
    if (process.env.KAPPA_UPDATE_EXAMPLES === "1") {
      mkdirSync(DIR, { recursive: true });
      for (const [name, text] of files) writeFileSync(path.join(DIR, name), text);
    }
    expect(existsSync(DIR)).toBe(true);
    expect(readdirSync(DIR).filter((f) => f.endsWith(".odcs.yaml")).sort()).toEqual([...files.keys()].sort());
    for (const [name, text] of files) expect(readFileSync(path.join(DIR, name), "utf8"), name).toBe(text);
  });

  it("every example is valid ODCS and plans as no change for its owner", async () => {
    for (const name of readdirSync(DIR).filter((f) => f.endsWith(".odcs.yaml"))) {
      const text = readFileSync(path.join(DIR, name), "utf8");
      expect(odcsProblems(parse(text)), name).toEqual([]);
      const domain = (parse(text) as { domain: string }).domain;
      const owner = await db.user.findUniqueOrThrow({ where: { email: `owner@${domain}.example` } });
      const { items } = await planContracts(db, { userId: owner.id }, { contracts: [{ content: text, source: name }] });
      expect({ name, action: items[0]?.action, errors: items[0]?.errors }).toEqual({ name, action: "no-change", errors: [] });
    }
  });

  it("the whole folder plans for an ordinary owner: other domains' files are skipped with the reason, not errors", async () => {
    const contracts = readdirSync(DIR)
      .filter((f) => f.endsWith(".odcs.yaml"))
      .sort()
      .map((name) => ({ content: readFileSync(path.join(DIR, name), "utf8"), source: `examples/contracts/${name}` }));
    const owner = await db.user.findUniqueOrThrow({ where: { email: "owner@orders.example" } });
    const summary = (items: Awaited<ReturnType<typeof planContracts>>["items"]) => items.map((i) => ({ source: i.source, action: i.action, errors: i.errors, skipped: i.skipped }));
    // The person, and a token with only write:orders: the payments files are not theirs.
    const token = { id: "t", name: "ci", scopes: ["read", "write:orders"] };
    for (const acting of [{ userId: owner.id }, { userId: owner.id, token }]) {
      const { items } = await planContracts(db, acting, { contracts });
      const reason = acting.token ? /^Not yours to change: this token cannot publish products of domain "payments" \(it needs the scope write:payments/ : /^Not yours to change: only owners of domain "payments" publish its products\.$/;
      expect(summary(items)).toEqual(
        contracts.map((c) =>
          c.source.includes("/payments.")
            ? { source: c.source, action: "skipped", errors: [], skipped: expect.stringMatching(reason) }
            : { source: c.source, action: "no-change", errors: [], skipped: undefined },
        ),
      );
    }
    // A file naming a domain that does not exist is still an error.
    const ghost = contracts[0]!.content.replace(/^domain: orders$/m, "domain: nowhere").replace(/^id: orders\./m, "id: nowhere.");
    const { items } = await planContracts(db, { userId: owner.id }, { contracts: [{ content: ghost }] });
    expect(items[0]).toMatchObject({ action: "error", errors: [expect.stringMatching(/no domain "nowhere"/)] });
  });
});
