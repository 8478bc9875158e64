import { describe, expect, it } from "vitest";
import { age, ago, formatDateTime, formatNumber, formatUtcClock, until } from "./format";

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

describe("formatNumber (by hand, not Intl: no ICU set-up while a page hydrates)", () => {
  it("groups digits as en-US does", () => {
    for (const n of [0, 7, 999, 1_000, 12_345, 999_999, 1_000_000, 27_000, 1_234_567_890, -1_234_567, 2 ** 53 - 1]) {
      expect(formatNumber(n)).toBe(n.toLocaleString("en-US"));
    }
  });
  it("rounds to at most the given fraction digits and drops trailing zeros", () => {
    expect(formatNumber(1234.5, 2)).toBe("1,234.5");
    expect(formatNumber(3.456, 2)).toBe("3.46");
    expect(formatNumber(0.105, 2)).toBe("0.11");
    expect(formatNumber(12_345.67, 1)).toBe("12,345.7");
    expect(formatNumber(2.0001, 3)).toBe("2");
    expect(formatNumber(0.04, 1)).toBe("0");
    expect(formatNumber(-0.04, 1)).toBe("0");
    expect(formatNumber(-1.25, 1)).toBe("-1.3");
    expect(formatNumber(1520.4)).toBe("1,520");
  });
});

describe("formatDateTime / formatUtcClock", () => {
  it("reads as en-GB's medium date and short time, in UTC", () => {
    expect(formatDateTime("2026-12-01T07:05:00Z")).toBe("1 Dec 2026, 07:05 UTC");
    expect(formatDateTime("2026-09-21T17:45:59.999Z")).toBe("21 Sept 2026, 17:45 UTC");
    expect(formatDateTime("2027-01-31T23:59:00+02:00")).toBe("31 Jan 2027, 21:59 UTC");
    expect(formatDateTime(null)).toBe("—");
    expect(formatUtcClock(Date.UTC(2026, 0, 1, 4, 3))).toBe("04:03");
  });
});
