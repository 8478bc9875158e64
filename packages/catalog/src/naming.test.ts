import { describe, expect, it } from "vitest";
import { consumerGroupPrefix, producerAccountName, slugify, topicNameFor, topicNameProblem } from "./naming.ts";

describe("topic naming", () => {
  it("derives <domain>.<product>.v<major>", () => {
    expect(topicNameFor("orders", "order-events", 1)).toBe("orders.order-events.v1");
    expect(topicNameFor("payments", "refunds", 12)).toBe("payments.refunds.v12");
  });

  it("slugifies names to lower-case, dash-separated ASCII", () => {
    expect(slugify("Order Events")).toBe("order-events");
    expect(slugify("  Café  Orders!! 2024 ")).toBe("cafe-orders-2024");
    expect(slugify("***")).toBe("");
  });

  it("applies Kafka's topic-name rules", () => {
    expect(topicNameProblem("orders.events.v1")).toBeNull();
    expect(topicNameProblem("a_b-c.D9")).toBeNull();
    expect(topicNameProblem("")).toMatch(/empty/);
    expect(topicNameProblem(".")).toMatch(/not a legal/);
    expect(topicNameProblem("..")).toMatch(/not a legal/);
    expect(topicNameProblem("orders/events")).toMatch(/may only contain/);
    expect(topicNameProblem("x".repeat(249))).toBeNull();
    expect(topicNameProblem("x".repeat(250))).toMatch(/at most 249/);
  });

  it("refuses to build an illegal topic name", () => {
    expect(() => topicNameFor("orders", "x".repeat(250), 1)).toThrow(/at most 249/);
  });

  it("names producer accounts and consumer-group prefixes", () => {
    expect(producerAccountName("orders")).toBe("orders-producer");
    expect(consumerGroupPrefix("payments-reconciliation")).toBe("payments-reconciliation.");
  });
});
