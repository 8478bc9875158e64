import { expect } from "@playwright/test";
import { test } from "./fixtures";
import { openUserMenu, storageFor } from "./roles";

/* Dark mode: follows the system setting, and a choice in the user menu overrides it and sticks. */
test.use({ storageState: storageFor("reviewer") });

const background = (page: import("@playwright/test").Page) => page.evaluate(() => getComputedStyle(document.documentElement).backgroundColor);
/** Relative luminance-ish: the sum of the RGB channels of a computed colour (oklch/lab/rgb all serialise with numbers). */
async function isDark(page: import("@playwright/test").Page): Promise<boolean> {
  return page.evaluate(() => {
    const probe = document.createElement("div");
    probe.style.color = getComputedStyle(document.documentElement).backgroundColor;
    document.body.appendChild(probe);
    const canvas = document.createElement("canvas").getContext("2d")!;
    canvas.fillStyle = getComputedStyle(probe).color;
    canvas.fillRect(0, 0, 1, 1);
    const [r, g, b] = canvas.getImageData(0, 0, 1, 1).data;
    probe.remove();
    return r! + g! + b! < 3 * 128;
  });
}

test("the theme follows the system, and a choice in the nav overrides it across reloads", async ({ page }) => {
  await page.emulateMedia({ colorScheme: "light" });
  await page.goto("/");
  expect(await isDark(page)).toBe(false);
  const light = await background(page);

  await page.emulateMedia({ colorScheme: "dark" });
  await expect.poll(() => isDark(page)).toBe(true);

  // An explicit "Light" wins over the dark system setting, and survives a reload.
  await openUserMenu(page);
  await page.getByTestId("theme-select").selectOption("light");
  await expect.poll(() => background(page)).toBe(light);
  await page.reload();
  await expect(page.getByTestId("theme-select")).toHaveValue("light");
  expect(await isDark(page)).toBe(false);

  await page.emulateMedia({ colorScheme: "light" });
  await openUserMenu(page);
  await page.getByTestId("theme-select").selectOption("dark");
  await expect.poll(() => isDark(page)).toBe(true);
  await page.reload();
  await expect(page.locator("html")).toHaveClass(/\bdark\b/);
  expect(await isDark(page)).toBe(true);

  // Back to the system setting: the cookie is gone.
  await openUserMenu(page);
  await page.getByTestId("theme-select").selectOption("system");
  await expect.poll(() => isDark(page)).toBe(false);
  expect((await page.context().cookies()).some((c) => c.name === "kappa-theme")).toBe(false);
});
