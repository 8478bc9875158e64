import { describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { contractToDesired, parseContract } from "./from-contract.ts";
import { productToContract, type ContractProductInput } from "./to-contract.ts";
import { odcsProblems } from "./validate.ts";

const avro = JSON.stringify({
  type: "record",
  name: "CustomerOrder",
  namespace: "example.orders",
  doc: "One order with its customer.",
  fields: [
    { name: "orderId", type: "string", doc: "The order's id." },
    { name: "lineNo", type: "int" },
    { name: "email", type: ["null", "string"], default: null, pii: true },
    { name: "placedAt", type: { type: "long", logicalType: "timestamp-millis" } },
    { name: "customer", type: { type: "record", name: "Customer", fields: [{ name: "phone", type: "string", pii: true }] } },
    { name: "lines", type: { type: "array", items: { type: "record", name: "Line", fields: [{ name: "sku", type: "string" }] } } },
  ],
});

const product: ContractProductInput = {
  id: "p1",
  name: "Customer Orders",
  slug: "customer-orders",
  description: "Orders with their customer's contact details, keyed by order and line.",
  classification: "CONFIDENTIAL",
  tags: ["orders", "pii"],
  freshnessSeconds: 90,
  availabilityPct: 99.95,
  partitions: 6,
  retentionMs: 7 * 86_400_000,
  cleanupPolicy: "compact",
  tieredStorage: false,
  localRetentionMs: -2,
  contactEmail: "owner@orders.example",
  keyFields: ["orderId", "lineNo"],
  majorVersion: 2,
  topicName: "orders.customer-orders.v2",
  status: "ACTIVE",
  createdAt: "2026-11-30T10:00:00.000Z",
  domain: { slug: "orders", name: "Orders" },
  owners: [{ name: "Olivia Orders", email: "owner@orders.example" }],
  schema: { version: 3, format: "AVRO", definition: avro },
};

const editable = (p: ContractProductInput) => ({
  name: p.name,
  description: p.description,
  classification: p.classification,
  tags: p.tags,
  freshnessSeconds: p.freshnessSeconds,
  availabilityPct: p.availabilityPct,
  partitions: p.partitions,
  retentionMs: p.retentionMs,
  cleanupPolicy: p.cleanupPolicy,
  tieredStorage: p.tieredStorage,
  localRetentionMs: p.localRetentionMs,
  contactEmail: p.contactEmail,
  keyFields: p.keyFields,
});

describe("ODCS contracts", () => {
  const contract = productToContract(product, { bootstrap: "127.0.0.1:9092" });

  it("maps a product version to a contract that is valid under the ODCS v3.1.0 JSON Schema", () => {
    expect(odcsProblems(contract)).toEqual([]);
    expect(contract).toMatchObject({ apiVersion: "v3.1.0", kind: "DataContract", id: "orders.customer-orders", version: "2.3.0", status: "active", domain: "orders", dataProduct: "Customer Orders" });
    expect(contract.servers?.[0]).toMatchObject({ type: "kafka", host: "127.0.0.1:9092", format: "avro", customProperties: [{ property: "topic", value: "orders.customer-orders.v2" }] });
    const properties = contract.schema?.[0]?.properties ?? [];
    expect(properties.map((p) => p.name)).toEqual(["orderId", "lineNo", "email", "placedAt", "customer", "lines"]);
    expect(properties[0]).toMatchObject({ logicalType: "string", required: true, primaryKey: true, primaryKeyPosition: 1, description: "The order's id." });
    expect(properties[2]).toMatchObject({ required: false, classification: "pii" });
    expect(properties[3]).toMatchObject({ logicalType: "timestamp", physicalType: "timestamp-millis" });
    expect(properties[4]?.properties?.[0]).toMatchObject({ name: "phone", classification: "pii" });
    expect(properties[5]?.items?.properties?.[0]).toMatchObject({ name: "sku" });
    expect(contract.slaProperties).toEqual(expect.arrayContaining([expect.objectContaining({ property: "retention", value: 7, unit: "d" }), expect.objectContaining({ property: "latency", value: 90, unit: "s" })]));
  });

  it("export → import is lossless, through YAML and through JSON", () => {
    for (const text of [stringify(contract), JSON.stringify(contract)]) {
      const { desired } = parseContract(text);
      expect({ ...desired, schema: undefined }).toMatchObject({ ...editable(product), contractId: "orders.customer-orders", domainSlug: "orders", requestedMajor: 2 });
      expect(desired.schema.format).toBe("AVRO");
      expect(JSON.parse(desired.schema.definition)).toEqual(JSON.parse(avro));
    }
    // Forever retention and a JSON Schema product survive too.
    const json = JSON.stringify({ type: "object", title: "Status", required: ["orderId"], properties: { orderId: { type: "string" }, at: { type: "string", format: "date-time" } } });
    const other = { ...product, retentionMs: -1, tieredStorage: true, cleanupPolicy: "delete", localRetentionMs: 3_600_000, keyFields: [], schema: { version: 1, format: "JSON_SCHEMA" as const, definition: json } };
    const exported = productToContract(other, { bootstrap: "kafka:9092" });
    expect(odcsProblems(exported)).toEqual([]);
    const back = parseContract(stringify(exported)).desired;
    expect(back).toMatchObject(editable(other));
    expect(back.schema.format).toBe("JSON_SCHEMA");
    expect(JSON.parse(back.schema.definition)).toEqual(JSON.parse(json));
  });

  it("refuses files that are not ODCS, or that the product form would refuse, naming the place in the file", () => {
    expect(() => parseContract("kind: DataContract\nid: x")).toThrow(/not a valid ODCS v3 contract/);
    expect(() => parseContract("a: [")).toThrow(/not valid YAML/);
    const bad = structuredClone(contract);
    bad.customProperties = bad.customProperties?.map((p) => (p.property === "partitions" ? { ...p, value: 0 } : p));
    bad.id = "orders.something-else";
    const error = (() => {
      try {
        contractToDesired(bad);
      } catch (e) {
        return e as { fields: Record<string, string[]> };
      }
      throw new Error("accepted");
    })();
    expect(error.fields["customProperties.partitions"]).toEqual(["At least 1 partition."]);
    expect(error.fields.id?.[0]).toContain('"orders.customer-orders"');
    const noSchema = structuredClone(contract);
    noSchema.schema = [{ name: "x", properties: [] }];
    expect(() => contractToDesired(noSchema)).toThrow(/physical Avro or JSON Schema/);
    const extra = { ...structuredClone(contract), topic: "not-odcs" };
    expect(() => contractToDesired(extra)).toThrow(/ODCS does not define: "topic"/);
  });

  it("a derived product's Flink SQL statement round-trips as the schema object's custom property derivedStatement", () => {
    const statement = "SELECT o.orderId, p.amount\nFROM `orders.order-events.v1` o\nJOIN `payments.payments-captured.v1` p\n  ON o.orderId = p.orderId AND p.capturedAt BETWEEN o.placedAt AND o.placedAt + INTERVAL '1' HOUR";
    const json = JSON.stringify({ type: "object", properties: { orderId: { type: "string" }, amount: { type: "number" } } });
    const derived = { ...product, keyFields: [], schema: { version: 1, format: "JSON_SCHEMA" as const, definition: json }, derived: { statement } };
    const exported = productToContract(derived, { bootstrap: "kafka:9092" });
    expect(odcsProblems(exported)).toEqual([]);
    expect(exported.schema?.[0]?.customProperties?.find((p) => p.property === "derivedStatement")?.value).toBe(statement);
    // Not among the topic settings.
    expect(exported.customProperties?.map((p) => p.property)).not.toContain("derivedStatement");
    // As the portal's download writes it (GET /api/v1/products/{id}/contract).
    const yaml = stringify(exported, { lineWidth: 0 });
    // A multi-line statement stays readable in the file: a YAML block, not one escaped line.
    expect(yaml).toContain("      - property: derivedStatement\n        value: |-\n          SELECT o.orderId, p.amount\n          FROM `orders.order-events.v1` o\n");
    for (const text of [yaml, JSON.stringify(exported)]) expect(parseContract(text).desired.derivedStatement).toBe(statement);
    // A product that is not derived has none, and its file carries none.
    expect(contract.schema?.[0]?.customProperties?.map((p) => p.property)).not.toContain("derivedStatement");
    expect(parseContract(stringify(contract)).desired.derivedStatement).toBeNull();

    const withStatement = (value: unknown) => {
      const c = structuredClone(exported);
      c.schema = c.schema?.map((o) => ({ ...o, customProperties: o.customProperties?.map((p) => (p.property === "derivedStatement" ? { ...p, value } : p)) }));
      return c;
    };
    // Windows line ends, surrounding blanks and a final semicolon are not a different statement.
    expect(contractToDesired(withStatement(`\n${statement.replace(/\n/g, "\r\n")} ;\n`)).desired.derivedStatement).toBe(statement);
    const refusal = (value: unknown) => {
      try {
        contractToDesired(value);
      } catch (e) {
        return (e as { fields: Record<string, string[]> }).fields;
      }
      throw new Error("accepted");
    };
    expect(refusal(withStatement(42))["schema[0].customProperties.derivedStatement"]).toEqual(["derivedStatement is the Flink SQL statement, as text."]);
    expect(refusal(withStatement(" ; "))["schema[0].customProperties.derivedStatement"]?.[0]).toMatch(/^derivedStatement is empty/);
    expect(refusal(withStatement(`SELECT 1 -- ${"x".repeat(20_000)}`))["schema[0].customProperties.derivedStatement"]).toEqual(["derivedStatement may be at most 20000 characters."]);
    const misplaced = { ...structuredClone(contract), customProperties: [...(contract.customProperties ?? []), { property: "derivedStatement", value: statement }] };
    expect(refusal(misplaced)["customProperties.derivedStatement"]?.[0]).toMatch(/put it on the schema object, as schema\[0\]\.customProperties\.derivedStatement/);
  });

  it("field-level encryption round-trips as the schema object's custom property encryptPii", () => {
    const prop = (c: ReturnType<typeof productToContract>) => c.schema?.[0]?.customProperties?.find((p) => p.property === "encryptPii");
    // On: written and read back; off with PII fields: written as false (the option is there to change); off without PII: absent.
    const on = productToContract({ ...product, encryptPii: true }, { bootstrap: "kafka:9092" });
    expect(odcsProblems(on)).toEqual([]);
    expect(prop(on)?.value).toBe(true);
    for (const text of [stringify(on), JSON.stringify(on)]) expect(parseContract(text).desired.encryptPii).toBe(true);
    const off = productToContract({ ...product, encryptPii: false }, { bootstrap: "kafka:9092" });
    expect(prop(off)?.value).toBe(false);
    expect(parseContract(stringify(off)).desired.encryptPii).toBe(false);
    const plain = JSON.stringify({ type: "record", name: "Plain", fields: [{ name: "id", type: "string" }] });
    const noPii = productToContract({ ...product, keyFields: [], encryptPii: false, schema: { version: 1, format: "AVRO", definition: plain } }, { bootstrap: "kafka:9092" });
    expect(prop(noPii)).toBeUndefined();
    // A file without the property asks for no encryption.
    expect(parseContract(stringify(contract)).desired.encryptPii).toBe(false);

    const refusal = (value: unknown) => {
      try {
        contractToDesired(value);
      } catch (e) {
        return (e as { fields: Record<string, string[]> }).fields;
      }
      throw new Error("accepted");
    };
    const withValue = structuredClone(on);
    withValue.schema = withValue.schema?.map((o) => ({ ...o, customProperties: o.customProperties?.map((p) => (p.property === "encryptPii" ? { ...p, value: "yes" } : p)) }));
    expect(refusal(withValue)["schema[0].customProperties.encryptPii"]).toEqual(["encryptPii is true or false."]);
    const misplaced = { ...structuredClone(contract), customProperties: [...(contract.customProperties ?? []), { property: "encryptPii", value: true }] };
    expect(refusal(misplaced)["customProperties.encryptPii"]?.[0]).toMatch(/put it on the schema object, as schema\[0\]\.customProperties\.encryptPii/);
  });
});
