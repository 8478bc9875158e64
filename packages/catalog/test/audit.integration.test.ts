import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDomain, csvField, exportAuditEvents, listAuditEvents, loadActor, renameDomain, type Db } from "../src/index.ts";
import { openTestDatabase, seedPeople } from "./fixtures.ts";

let db: Db;
let dispose: () => Promise<void>;
let ctx: Awaited<ReturnType<typeof seedPeople>>;

beforeAll(async () => {
  ({ db, dispose } = await openTestDatabase());
  ctx = await seedPeople(db);
});
afterAll(async () => dispose());

async function collect(gen: AsyncGenerator<string>): Promise<string> {
  let out = "";
  for await (const chunk of gen) out += chunk;
  return out;
}

describe("audit log", () => {
  it("filters by action, date range, entity and actor", async () => {
    const admin = await loadActor(db, ctx.people.admin.id);
    const d = await createDomain(db, { ...ctx.as.admin, request: { clientAddress: "198.51.100.4", userAgent: "curl/8.5" } }, { slug: "audited", name: "Audited" });
    await renameDomain(db, ctx.as.admin, d.id, { name: "Audited Again" });
    // One old event, written as the worker would (the table is append-only).
    await db.auditEvent.create({ data: { actorEmail: "worker", action: "drift.repaired", entityType: "DataProduct", entityId: "p-old", at: new Date("2026-01-15T12:00:00Z") } });

    const byAction = await listAuditEvents(db, admin, { action: "domain." });
    expect(byAction.items.map((e) => e.action).sort()).toEqual(["domain.created", "domain.renamed"]);
    expect(byAction.items.find((e) => e.action === "domain.created")).toMatchObject({ clientAddress: "198.51.100.4", userAgent: "curl/8.5" });
    expect((await listAuditEvents(db, admin, { action: "RENAMED" })).total).toBe(1);
    const january = await listAuditEvents(db, admin, { from: "2026-01-15", to: "2026-01-15" });
    expect(january.items.map((e) => e.entityId)).toEqual(["p-old"]);
    expect((await listAuditEvents(db, admin, { from: "2026-01-16" })).items.some((e) => e.entityId === "p-old")).toBe(false);
    expect((await listAuditEvents(db, admin, { actor: "ADMIN@", entityType: "Domain", entityId: d.id })).total).toBe(2);
    await expect(listAuditEvents(db, admin, { from: "2026-02-01", to: "2026-01-01" })).rejects.toMatchObject({ status: 400, fields: { to: [expect.any(String)] } });
    await expect(listAuditEvents(db, admin, { from: "yesterday" })).rejects.toMatchObject({ status: 400 });
  });

  it("exports the filtered log as CSV and JSON, newest first, only to readers of the whole log", async () => {
    const admin = await loadActor(db, ctx.people.admin.id);
    // A value that a spreadsheet would run as a formula.
    await db.auditEvent.create({ data: { actorEmail: "=HYPERLINK(\"http://evil\")", action: "export.probe", entityType: "User", entityId: "u1", data: { note: 'say "hi"' } } });
    const csv = await collect(await exportAuditEvents(db, admin, { action: "export.probe" }, "csv"));
    const lines = csv.trimEnd().split("\r\n");
    expect(lines[0]).toBe("id,at,actorEmail,action,entityType,entityId,clientAddress,userAgent,data");
    expect(lines).toHaveLength(2);
    expect(lines[1]).toContain(`"'=HYPERLINK(""http://evil"")"`);
    expect(lines[1]).toContain(`"{""note"":""say \\""hi\\""""}"`);

    // More rows than one export batch, to cross the keyset boundary.
    await db.auditEvent.createMany({ data: Array.from({ length: 1205 }, (_, i) => ({ actorEmail: "bulk@x.test", action: "bulk.row", entityType: "User", entityId: `bulk-${i}` })) });
    const json = JSON.parse(await collect(await exportAuditEvents(db, admin, { action: "bulk.row" }, "json"))) as { id: string; entityId: string }[];
    expect(json).toHaveLength(1205);
    expect(new Set(json.map((r) => r.id)).size).toBe(1205);
    expect(BigInt(json[0]?.id ?? 0) > BigInt(json[1204]?.id ?? 0)).toBe(true);
    expect(JSON.parse(await collect(await exportAuditEvents(db, admin, { action: "nothing-matches" }, "json")))).toEqual([]);

    await expect(exportAuditEvents(db, await loadActor(db, ctx.people.ordersOwner.id), {}, "csv")).rejects.toMatchObject({ status: 403 });
  });

  it("quotes CSV fields and defuses formulas", () => {
    expect(csvField("plain")).toBe('"plain"');
    expect(csvField("+1")).toBe(`"'+1"`);
    expect(csvField("-2")).toBe(`"'-2"`);
    expect(csvField("@x")).toBe(`"'@x"`);
    expect(csvField('a"b')).toBe('"a""b"');
  });
});
