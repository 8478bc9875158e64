import { describe, expect, it } from "vitest";
import { costsCsv, formatBytes, formatMoney, type Costs } from "./costs";

const costs: Costs = {
  month: "2026-11",
  currency: "EUR",
  prices: { currency: "EUR", hotStorageGbMonth: 0.1, tieredStorageGbMonth: 0.023, gbIn: 0.05, gbOut: 0.05, partitionHour: 0.0015 },
  chargeback: "consumers",
  policyVersion: 1,
  scope: "platform",
  total: "3.000000",
  platformTotal: "3.000000",
  trend: [],
  domains: [
    {
      id: "d1",
      slug: "orders",
      name: "Orders",
      total: "0.000000",
      ownProductsCost: "3.000000",
      producerShare: "0.000000",
      chargedToOthers: "3.000000",
      chargedToThisDomain: "0.000000",
      charges: [],
      trend: [],
      products: [
        {
          id: "p1",
          name: '=Order "Events", v1',
          topic: "orders.order-events.v1",
          usage: { bytesIn: 1000, bytesOut: 2000, hotStorageGbMonth: 1.5, tieredStorageGbMonth: 0, partitionHours: 6 },
          cost: { hotStorage: "0.150000", tieredStorage: "0.000000", in: "1.000000", out: "1.850000", partitions: "0.000000", total: "3.000000" },
          producerShare: "0.000000",
          split: [{ domainId: "d2", slug: "payments", bytesRead: 2000, amount: "3.000000" }],
          trend: [],
        },
      ],
    },
    {
      id: "d2",
      slug: "payments",
      name: "Payments",
      total: "3.000000",
      ownProductsCost: "0.000000",
      producerShare: "0.000000",
      chargedToOthers: "0.000000",
      chargedToThisDomain: "3.000000",
      products: [],
      charges: [{ productId: "p1", productName: "Order Events", topic: "orders.order-events.v1", producerDomain: "orders", bytesRead: 2000, amount: "3.000000" }],
      trend: [],
    },
  ],
};

describe("the costs CSV", () => {
  it("has a product line, its producer share and each charge, the domain totals and the total; quotes and defuses formulas", () => {
    const lines = costsCsv(costs).trimEnd().split("\r\n");
    expect(lines[0]).toBe("month,currency,domain,kind,product,topic,producer_domain,charged_domain,bytes_in,bytes_out,hot_storage_gb_month,tiered_storage_gb_month,partition_hours,amount");
    expect(lines[1]).toBe(`2026-11,EUR,orders,product,"'=Order ""Events"", v1",orders.order-events.v1,orders,,1000,2000,1.5,0,6,3.000000`);
    expect(lines[3]).toContain(",charge,");
    expect(lines[3]).toMatch(/,orders,payments,,2000,,,,3\.000000$/);
    expect(lines.filter((l) => l.includes(",domain_total,")).map((l) => l.split(",").pop())).toEqual(["0.000000", "3.000000"]);
    // What payments is charged, on its own lines: producer shares and charged_in lines make each domain's total.
    expect(lines).toContain("2026-11,EUR,payments,charged_in,Order Events,orders.order-events.v1,orders,payments,,2000,,,,3.000000");
    expect(lines.at(-1)).toBe("2026-11,EUR,,total,,,,,,,,,,3.000000");
  });

  it("formats money and bytes for people", () => {
    expect(formatMoney("1234.567891", "EUR")).toBe("EUR 1,234.57");
    expect(formatBytes(6_400_000_000)).toBe("6.4 GB");
    expect(formatBytes(999)).toBe("999 B");
  });
});
