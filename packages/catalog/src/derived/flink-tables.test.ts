import { describe, expect, it } from "vitest";
import { quotedIdentifiers } from "../actions/validate-derived-statement.ts";
import { schemaFields } from "../schema/fields.ts";
import { flinkType, inputTableDdl, jsonSchemaForType, outputJsonSchema, outputTableDdl, quoteIdentifier, quoteLiteral } from "./flink-tables.ts";
import { flinkError } from "./sql-gateway.ts";

const ORDER_EVENTS = JSON.stringify({
  type: "object",
  properties: {
    orderId: { type: "string" },
    amount: { type: "number" },
    quantity: { type: "integer" },
    placedAt: { type: "string", format: "date-time" },
    customer: { type: "object", properties: { email: { type: "string", "x-pii": true } } },
    tags: { type: "array", items: { type: "string" } },
  },
  required: ["orderId", "amount", "placedAt"],
});

describe("Flink tables from the catalog", () => {
  it("maps a JSON Schema product to Kafka-table columns with a watermark on its event-time field", () => {
    const ddl = inputTableDdl({ topicName: "orders.order-events.v1", format: "JSON_SCHEMA", fields: schemaFields("JSON_SCHEMA", ORDER_EVENTS) }, { bootstrap: "127.0.0.1:9092" });
    expect(ddl).toContain("CREATE TEMPORARY TABLE `orders.order-events.v1` (");
    expect(ddl).toContain("`orderId` STRING NOT NULL");
    expect(ddl).toContain("`amount` DOUBLE NOT NULL");
    expect(ddl).toContain("`quantity` BIGINT,");
    expect(ddl).toContain("`placedAt` TIMESTAMP_LTZ(3) NOT NULL");
    expect(ddl).toContain("`customer` ROW<`email` STRING>");
    expect(ddl).toContain("`tags` ARRAY<STRING>");
    expect(ddl).toContain("WATERMARK FOR `placedAt` AS `placedAt` - INTERVAL '5' SECOND");
    expect(ddl).toContain("'connector' = 'kafka'");
    expect(ddl).toContain("'topic' = 'orders.order-events.v1'");
    expect(ddl).toContain("'format' = 'json'");
    expect(ddl).toContain("'scan.startup.mode' = 'earliest-offset'");
    expect(ddl).toContain("'properties.isolation.level' = 'read_committed'");
    expect(ddl).not.toContain("sasl");
  });

  it("starts a replay's inputs at an instant (scan.startup.mode timestamp) under the group it is given", () => {
    const input = { topicName: "orders.order-events.v1", format: "JSON_SCHEMA" as const, fields: schemaFields("JSON_SCHEMA", ORDER_EVENTS) };
    const ddl = inputTableDdl(input, { bootstrap: "b:1" }, "payments-flink-x.replay-1", { mode: "timestamp", millis: Date.UTC(2026, 11, 1) });
    expect(ddl).toContain("'scan.startup.mode' = 'timestamp'");
    expect(ddl).toContain(`'scan.startup.timestamp-millis' = '${Date.UTC(2026, 11, 1)}'`);
    expect(ddl).toContain("'properties.group.id' = 'payments-flink-x.replay-1'");
    expect(ddl).not.toContain("earliest-offset");
    expect(() => inputTableDdl(input, { bootstrap: "b:1" }, undefined, { mode: "timestamp", millis: Number.NaN })).toThrow("milliseconds since the epoch");
  });

  it("maps Avro types (int, long, timestamp-millis, nullable unions) and reads Avro through the registry", () => {
    const avro = JSON.stringify({ type: "record", name: "P", fields: [{ name: "n", type: "int" }, { name: "id", type: "long" }, { name: "at", type: { type: "long", logicalType: "timestamp-millis" } }, { name: "note", type: ["null", "string"], default: null }] });
    const fields = schemaFields("AVRO", avro);
    expect(fields.map((f) => flinkType(f))).toEqual(["INT NOT NULL", "BIGINT NOT NULL", "TIMESTAMP_LTZ(3) NOT NULL", "STRING"]);
    // Flink's avro-confluent format reads timestamp-millis only as TIMESTAMP (UTC wall-clock time), not TIMESTAMP_LTZ.
    expect(fields.map((f) => flinkType(f, !f.required, "AVRO"))).toEqual(["INT NOT NULL", "BIGINT NOT NULL", "TIMESTAMP(3) NOT NULL", "STRING"]);
    const ddl = inputTableDdl({ topicName: "payments.p.v1", format: "AVRO", fields }, { bootstrap: "b:1", registryUrl: "http://registry" });
    expect(ddl).toContain("'format' = 'avro-confluent'");
    expect(ddl).toContain("`at` TIMESTAMP(3) NOT NULL,");
    expect(ddl).toContain("WATERMARK FOR `at` AS `at` - INTERVAL '5' SECOND");
    expect(ddl).toContain("'avro-confluent.url' = 'http://registry'");
    // Validation connects nowhere: no login. A job logs in to the registry with its own Kafka login (Basic).
    expect(ddl).not.toContain("basic-auth");
    const job = inputTableDdl({ topicName: "payments.p.v1", format: "AVRO", fields }, { bootstrap: "b:1", registryUrl: "http://registry", sasl: { username: "payments-flink-x", password: "p4ss" } });
    expect(job).toContain("'avro-confluent.basic-auth.credentials-source' = 'USER_INFO'");
    expect(job).toContain("'avro-confluent.basic-auth.user-info' = 'payments-flink-x:p4ss'");
    expect(() => inputTableDdl({ topicName: "payments.p.v1", format: "AVRO", fields }, { bootstrap: "b:1", sasl: { username: "a:b", password: "p" } })).toThrow(/colon/);
  });

  it("quotes identifiers and literals so that no name or value leaves its quotes", () => {
    expect(quoteIdentifier("a`b")).toBe("`a``b`");
    expect(quoteLiteral("it's")).toBe("'it''s'");
    const ddl = outputTableDdl("out", "x.y.v1", [{ name: "n", type: "BIGINT" }], { bootstrap: "b:1", sasl: { username: "payments-revenue", password: "p4ss" } }, "payments-revenue.x");
    expect(ddl).toContain(`'properties.sasl.jaas.config' = 'org.apache.flink.kafka.shaded.org.apache.kafka.common.security.scram.ScramLoginModule required username="payments-revenue" password="p4ss";'`);
    expect(ddl).toContain("'sink.delivery-guarantee' = 'exactly-once'");
    expect(ddl).toContain("'sink.transactional-id-prefix' = 'payments-revenue.x'");
    expect(() => outputTableDdl("out", "t", [], { bootstrap: "b:1", sasl: { username: "u", password: 'x" debug="true' } })).toThrow(/quotes/);
  });

  it("turns the planner's types into the derived product's JSON Schema", () => {
    expect(jsonSchemaForType("BIGINT NOT NULL")).toEqual({ schema: { type: "integer", "x-flink-type": "BIGINT" }, nullable: false });
    expect(jsonSchemaForType("TIMESTAMP_LTZ(3) *ROWTIME*").schema).toEqual({ type: "string", format: "date-time", "x-flink-type": "TIMESTAMP_LTZ(3)" });
    const schema = outputJsonSchema([
      { name: "window_start", type: "TIMESTAMP(3) NOT NULL" },
      { name: "revenue", type: "DOUBLE" },
      { name: "lines", type: "ARRAY<ROW<`sku` STRING NOT NULL, `qty` INT>>" },
    ]);
    expect(schema).toMatchObject({
      type: "object",
      required: ["window_start"],
      additionalProperties: false,
      properties: {
        window_start: { type: "string", "x-flink-type": "TIMESTAMP(3)" },
        revenue: { anyOf: [{ type: "number", "x-flink-type": "DOUBLE" }, { type: "null" }] },
        lines: { anyOf: [{ type: "array", items: { anyOf: [{ type: "object", required: ["sku"], properties: { sku: { type: "string" }, qty: { anyOf: [{ type: "integer" }, { type: "null" }] } } }, { type: "null" }] } }, { type: "null" }] },
      },
    });
  });

  it("finds the products a statement names by their quoted topic, not inside string literals", () => {
    expect(quotedIdentifiers("SELECT o.`id` FROM `orders.order-events.v1` o JOIN `payments.payments-captured.v1` p ON o.id = p.orderId WHERE o.note <> 'a `fake.topic.v1` in text'")).toEqual(["id", "orders.order-events.v1", "payments.payments-captured.v1"]);
  });
});

describe("Flink's errors from the gateway's stack trace", () => {
  it("takes the planner's message and its line and column, without the stack frames or the parser's token list", () => {
    const trace = [
      "Internal server error.",
      "<Exception on server side:",
      "org.apache.flink.table.gateway.api.utils.SqlGatewayException: org.apache.flink.table.gateway.api.utils.SqlGatewayException: Failed to fetchResults.",
      "\tat org.apache.flink.table.gateway.rest.handler.statement.FetchResultsHandler.handleRequest(FetchResultsHandler.java:91)",
      "Caused by: org.apache.flink.table.gateway.service.utils.SqlExecutionException: Failed to execute the operation 1.",
      "\t... 1 more",
      "Caused by: org.apache.calcite.runtime.CalciteContextException: From line 2, column 8 to line 2, column 11: Column 'nope' not found in any table",
      "\t... 7 more",
      "Caused by: org.apache.calcite.sql.validate.SqlValidatorException: Column 'nope' not found in any table",
      "End of exception on server side>",
    ].join("\n");
    const error = flinkError(trace);
    expect(error.message).toBe("From line 2, column 8 to line 2, column 11: Column 'nope' not found in any table");
    expect([error.line, error.column]).toEqual([2, 8]);
    const parse = flinkError(["org.apache.flink.table.gateway.service.utils.SqlExecutionException: Failed to execute the operation 2.", "Caused by: org.apache.flink.table.api.SqlParserException: SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 2, column 8.", "Was expecting one of:", '    "ABS" ...', "\tat x.y(Z.java:1)"].join("\n"));
    expect(parse.message).toBe("SQL parse failed. Incorrect syntax near the keyword 'FROM' at line 2, column 8.");
    expect([parse.line, parse.column]).toEqual([2, 8]);
  });
});
