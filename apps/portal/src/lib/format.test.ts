import { describe, expect, it } from "vitest";
import { age, ago, until } from "./format";

describe("relative times", () => {
  const now = Date.parse("2026-12-01T12:00:00Z");
  const at = (ms: number) => new Date(now + ms).toISOString();

  it("reads 'just now', never 'just now ago'", () => {
    expect(ago(at(0), now)).toBe("just now");
    expect(ago(at(-400), now)).toBe("just now");
    expect(ago(at(5_000), now)).toBe("just now"); // a clock slightly ahead
    expect(ago(at(-1_000), now)).toBe("1 second ago");
    expect(ago(at(-125_000), now)).toBe("2 minutes ago");
    expect(ago(at(-3 * 86_400_000), now)).toBe("3 days ago");
  });

  it("gives durations without 'ago' and sunsets as 'in …'", () => {
    expect(age(at(0), now)).toBe("under a second");
    expect(age(at(-3_600_000), now)).toBe("1 hour");
    expect(until(at(2 * 86_400_000 + 5_000), now)).toBe("in 2 days");
    expect(until(at(-10), now)).toBe("now");
  });
});
