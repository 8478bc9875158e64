import type { PolicyDocument } from "../policies/document.ts";
import { DEFAULT_SCHEDULE, type RecertificationSchedule } from "./schedule.ts";

/** The schedule from the first enabled `recertification` rule of the policy in force; the platform default without one. */
export function scheduleFromPolicy(document: PolicyDocument): RecertificationSchedule {
  const rule = document.rules.find((r) => r.enabled && r.check === "recertification");
  if (!rule || rule.check !== "recertification") return DEFAULT_SCHEDULE;
  const p = rule.params;
  const every = (c: keyof RecertificationSchedule["everyDays"]) => p.byClassification[c]?.everyDays ?? p.default.everyDays;
  return {
    everyDays: { PUBLIC: every("PUBLIC"), INTERNAL: every("INTERNAL"), CONFIDENTIAL: every("CONFIDENTIAL"), RESTRICTED: every("RESTRICTED") },
    graceDays: p.graceDays,
    autoRevoke: p.autoRevoke,
    unusedDays: p.unusedDays,
  };
}
