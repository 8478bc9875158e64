import { test as base } from "@playwright/test";

/**
 * Playwright's `test` with one automatic fixture: every browser context a test
 * opens by itself (`as(browser, role)`, `browser.newContext()`) is closed when
 * the test ends. The `browser` lives for the whole run, so a context left open
 * kept its pages running — their live tables polling the portal every few
 * seconds — through every later test: 111 renderer processes after half the
 * journeys, the portal and the machine busy answering pages nobody looked at.
 * Contexts opened before the test (a `beforeAll`) are left to their owner.
 */
export const test = base.extend<{ closeOpenedContexts: void }>({
  closeOpenedContexts: [
    async ({ browser }, use) => {
      const before = new Set(browser.contexts());
      await use();
      await Promise.all(
        browser
          .contexts()
          .filter((context) => !before.has(context))
          .map((context) => context.close().catch(() => undefined)),
      );
    },
    { auto: true },
  ],
});
