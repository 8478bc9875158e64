import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { darkPaletteCss, PALETTE_FILE, tailwindPalette, themeCss } from "../../scripts/dark-palette";
import { parseTheme } from "./theme";

describe("dark theme", () => {
  it("is Tailwind's palette mirrored, and the committed file is current", () => {
    expect(readFileSync(PALETTE_FILE, "utf8")).toBe(darkPaletteCss(themeCss()));
  });

  it("mirrors every shade (50 ↔ 950, 500 stays) and lifts white cards one step off the page", () => {
    const palette = tailwindPalette(themeCss());
    const css = darkPaletteCss(themeCss());
    const slate = palette.get("slate")!;
    expect(css).toContain(`--color-slate-50: ${slate.get("950")};`);
    expect(css).toContain(`--color-slate-700: ${slate.get("300")};`);
    expect(css).toContain(`--color-slate-500: ${slate.get("500")};`);
    expect(css).toContain(`--color-white: ${slate.get("900")};`);
    expect(css).toContain(`--color-emerald-100: ${palette.get("emerald")!.get("900")};`);
    // Both the system setting and an explicit choice switch it on.
    expect(css).toMatch(/@media \(prefers-color-scheme: dark\) \{\n {2}:root:not\(\.light\) \{/);
    expect(css).toMatch(/\n:root\.dark \{\n/);
  });

  it("reads only known themes from the cookie", () => {
    expect(parseTheme("dark")).toBe("dark");
    expect(parseTheme("light")).toBe("light");
    expect(parseTheme("<script>")).toBe("system");
    expect(parseTheme(undefined)).toBe("system");
  });
});
