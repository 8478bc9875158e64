/*
 * The README's screenshots (`npm run screenshots -w apps/portal`): the catalog
 * and the Order Events product page of a fresh `npm start`, after the demo
 * traffic has run long enough for live figures (throughput, lag, bytes in the
 * object store). Debian's Chromium through playwright-core; nothing is
 * downloaded. SCREENSHOTS_URL photographs a running portal instead.
 */
import { mkdirSync } from "node:fs";
import path from "node:path";
import { chromium } from "@playwright/test";
import { demoIds, demoPortal, signIn } from "./demo-portal";

const OUT = path.resolve(import.meta.dirname, "../../../docs/screenshots");

async function main() {
  const portal = await demoPortal({
    existing: process.env.SCREENSHOTS_URL,
    port: Number(process.env.SCREENSHOTS_PORT ?? 3320),
    pgPort: Number(process.env.SCREENSHOTS_PG_PORT ?? 55620),
    kafkaPort: Number(process.env.SCREENSHOTS_KAFKA_PORT ?? 19320),
    // Three minutes of demo traffic: the two-minute local window of Order Events has passed, so bytes are in the object store.
    settleMs: Number(process.env.SCREENSHOTS_SETTLE_MS ?? 180_000),
    label: "screenshots",
  });
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"],
  });
  try {
    const session = await signIn(portal.base, "owner@orders.example", "kappa-demo");
    const { productId } = await demoIds(portal.base, session.header);
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, deviceScaleFactor: 1, colorScheme: "light" });
    const host = new URL(portal.base).hostname;
    await context.addCookies(session.cookies.map((c) => ({ ...c, domain: host, path: "/" })));
    const page = await context.newPage();
    mkdirSync(OUT, { recursive: true });
    const shots: [string, string, string][] = [
      ["catalog", "/", "main"],
      ["product", `/products/${productId}`, "[data-testid=tiered-storage]"],
    ];
    for (const [name, url, ready] of shots) {
      await page.goto(`${portal.base}${url}`);
      await page.locator(ready).first().waitFor();
      await page.waitForLoadState("networkidle");
      const file = path.join(OUT, `${name}.png`);
      await page.screenshot({ path: file, fullPage: name !== "catalog" });
      console.log(`screenshots: wrote ${path.relative(process.cwd(), file)}`);
    }
  } finally {
    await browser.close();
    await portal.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
