// Admin requests routed as Kafka's AdminClient routes them, with the errors a
// multi-node cluster answers while its controller or leaders move retried.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CORE_APIS } from "@kappa/broker";
import { ApiKey, ErrorCode } from "@kappa/kafka-protocol";
import { clusterFor, startTestBroker, type TestBroker } from "./helpers.ts";

let broker: TestBroker;

beforeAll(async () => {
  broker = await startTestBroker();
});

afterAll(async () => {
  await broker?.cleanup();
});

describe("admin request routing", () => {
  it("sends CreateTopics again with fresh metadata when the broker answers NOT_CONTROLLER (the controller moved), and the topic is created", async () => {
    const createTopics = CORE_APIS.find((a) => a.apiKey === ApiKey.CreateTopics);
    if (!createTopics) throw new Error("broker has no CreateTopics handler");
    let calls = 0;
    broker.registry.replace({
      ...createTopics,
      handle: async (ctx, request) => {
        calls++;
        if (calls > 1) return createTopics.handle(ctx, request);
        const { topics } = request as { topics: { name: string }[] };
        return { throttleTimeMs: 0, topics: topics.map((t) => ({ name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: "This is not the correct controller for this cluster." })) };
      },
    });
    const cluster = clusterFor(broker.bootstrap);
    try {
      await cluster.createTopics([{ name: "routing.moved-controller.v1", partitions: 2, configs: {} }]);
      expect(calls).toBe(2);
      expect((await cluster.partitionCounts(["routing.moved-controller.v1"])).get("routing.moved-controller.v1")).toBe(2);
    } finally {
      await cluster.close();
      broker.registry.replace(createTopics);
    }
  });
});
