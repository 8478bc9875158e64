import { describe, expect, it } from "vitest";
import { freePort } from "./tools.ts";

describe("freePort", () => {
  it("never hands out the same port twice in one process (a cluster takes several before any listens)", async () => {
    const ports: number[] = [];
    // In batches, as startApacheKafka asks (Promise.all per listener kind), and one by one.
    for (let batch = 0; batch < 20; batch++) ports.push(...(await Promise.all(Array.from({ length: 10 }, () => freePort()))));
    for (let i = 0; i < 100; i++) ports.push(await freePort());
    expect(new Set(ports).size).toBe(ports.length);
    for (const port of ports) expect(port).toBeGreaterThan(0);
  });
});
