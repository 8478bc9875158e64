import { describe, expect, it } from "vitest";
import { engineJvmOptions, freePort } from "./tools.ts";

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

describe("engineJvmOptions", () => {
  it("splits KAPPA_ENGINE_JVM_OPTS into JVM options, none when unset", () => {
    expect(engineJvmOptions({})).toEqual([]);
    expect(engineJvmOptions({ KAPPA_ENGINE_JVM_OPTS: "  -XX:TieredStopAtLevel=1   -Xss512k " })).toEqual(["-XX:TieredStopAtLevel=1", "-Xss512k"]);
  });

  it("refuses what is not an option, naming it (a class name or a quote would change what the JVM runs)", () => {
    expect(() => engineJvmOptions({ KAPPA_ENGINE_JVM_OPTS: "-Xmx1g kafka.Kafka" })).toThrow(/"kafka\.Kafka" is not a JVM option/);
    expect(() => engineJvmOptions({ KAPPA_ENGINE_JVM_OPTS: "-Dx='y'" })).toThrow(/is not a JVM option/);
  });
});
