// DescribeConfigs on the broker resource, seen through kafkajs 2.2.4: each
// setting is one row, and `listeners` is the configured setting itself.
import { ConfigResourceTypes, type Admin } from "kafkajs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { embeddedOnly, kafkaClient, startTestBroker, type TestBroker } from "./helpers.ts";

// PLAINTEXT first so kafkajs can connect without SASL; the second listener shows the whole list is reported.
const LISTENERS = "PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0";

describe("DescribeConfigs(BROKER)", () => {
  let broker: TestBroker;
  let admin: Admin;
  beforeAll(async () => {
    broker = await startTestBroker({ listeners: LISTENERS });
    admin = kafkaClient(broker.bootstrap).admin();
    await admin.connect();
  });
  afterAll(async () => {
    await admin?.disconnect();
    await broker?.cleanup();
  });

  const brokerRows = async (configNames?: string[]) => {
    const res = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: String(broker.config["node.id"]), ...(configNames ? { configNames } : {}) }], includeSynonyms: false });
    expect(res.resources[0]?.errorCode).toBe(0);
    return res.resources[0]?.configEntries ?? [];
  };

  it("lists listeners exactly once among all settings and when asked by name, with the same value", async () => {
    const all = await brokerRows();
    const listeners = all.filter((e) => e.configName === "listeners");
    expect(listeners).toHaveLength(1);
    expect(listeners[0]?.isDefault).toBe(false);
    // No setting is reported twice.
    const names = all.map((e) => e.configName);
    expect(names.filter((n, i) => names.indexOf(n) !== i)).toEqual([]);

    const asked = await brokerRows(["listeners"]);
    expect(asked.map((e) => [e.configName, e.configValue])).toEqual([["listeners", listeners[0]?.configValue]]);
  });

  // An Apache Kafka node reports its own listeners (the oracle node's CLIENTS, CONTROLLER and OPEN), not the test's,
  // and Kafka can change `listeners` at run time (read-only false), which this broker cannot (README "The oracle").
  embeddedOnly("the configured listeners value: the oracle node has its own listener names and ports").it("reports listeners as configured, read-only", async () => {
    const listeners = (await brokerRows(["listeners"])).map((e) => [e.configValue, e.isDefault, e.readOnly]);
    expect(listeners).toEqual([[LISTENERS, false, true]]);
  });
});
