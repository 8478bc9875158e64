import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { RotatingLog, serviceLogs, severityOf } from "./service-logs.ts";

describe("service logs", () => {
  it("judges the services' lines: worker JSON, broker levels, and other tools' words", () => {
    expect(severityOf('{"time":"t","level":"warn","msg":"database unreachable"}')).toBe("warn");
    expect(severityOf('{"time":"t","level":"info","msg":"task done"}')).toBe("info");
    expect(severityOf("2026-12-01T09:44:40.799Z kappa-broker INFO created topic x")).toBe("info");
    expect(severityOf("2026-12-01T09:44:40.799Z kappa-broker ERROR log dir failed")).toBe("error");
    expect(severityOf("Turbopack build encountered 2 warnings:")).toBe("warn");
    expect(severityOf("⨯ Failed to compile")).toBe("error");
    expect(severityOf("✓ Compiled successfully in 29.2s")).toBe("info");
  });

  it("writes every line to the service's file but only warnings and errors to the console", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-logs-"));
    const printed: string[] = [];
    const logs = serviceLogs(dir, false, (t) => printed.push(t));
    logs.line("kafka", "2026-12-01T00:00:00Z kappa-broker INFO listening");
    logs.line("kafka", "2026-12-01T00:00:00Z kappa-broker WARN slow disk");
    logs.close();
    expect(readFileSync(path.join(dir, "logs", "kafka.log"), "utf8")).toBe("2026-12-01T00:00:00Z kappa-broker INFO listening\n2026-12-01T00:00:00Z kappa-broker WARN slow disk\n");
    expect(printed).toEqual(["[kafka] 2026-12-01T00:00:00Z kappa-broker WARN slow disk\n"]);

    const verbose: string[] = [];
    const all = serviceLogs(dir, true, (t) => verbose.push(t));
    all.line("worker", '{"level":"info","msg":"ready"}');
    all.close();
    expect(verbose).toEqual(['[worker] {"level":"info","msg":"ready"}\n']);
  });

  it("rotates by size and keeps a bounded number of older files", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "kappa-logs-"));
    const file = path.join(dir, "portal.log");
    const log = new RotatingLog(file, 100, 2);
    for (let i = 0; i < 12; i++) log.write(`line ${i} ${"x".repeat(30)}`);
    log.close();
    expect(existsSync(path.join(dir, "portal.1.log"))).toBe(true);
    expect(existsSync(path.join(dir, "portal.2.log"))).toBe(true);
    expect(existsSync(path.join(dir, "portal.3.log"))).toBe(false);
    expect(readFileSync(file, "utf8")).toContain("line 11");
    expect(readFileSync(file, "utf8").length).toBeLessThanOrEqual(100);
  });
});
