import { randomBytes, scryptSync } from "node:crypto";
import http from "node:http";
import { expect, type Page } from "@playwright/test";
import { createPasswordUser, withDb } from "./db";
import { test } from "./fixtures";
import { openUserMenu, storageFor } from "./roles";

/*
 * Issue 8, the portal findings, as an attacker would try them against the
 * running product (npm start, Chromium): cross-origin form posts, open
 * redirects, framing, missing headers, throttling, hostile input.
 */

const ATTACKER = "http://localhost:3603"; // another port of the same host: same site, other origin

async function demoIds() {
  return withDb(async (c) => {
    const payments = await c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'payments'`);
    const product = await c.query<{ id: string }>(`SELECT id FROM "DataProduct" WHERE name = 'Order Events'`);
    return { paymentsId: payments.rows[0]!.id, orderEventsId: product.rows[0]!.id };
  });
}

test.describe("cross-origin writes (finding 4)", () => {
  test.use({ storageState: storageFor("paymentsOwner") });

  test("a form post from a page on another port of the same host is refused and creates nothing", async ({ page, baseURL }) => {
    const { paymentsId } = await demoIds();
    // text/plain form: the trick that made a JSON API accept a cross-site form.
    const body = `{"domainId":"${paymentsId}","name":"payments-csrf","description":"`;
    await page.route(`${ATTACKER}/attack`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: `<form id="f" method="POST" enctype="text/plain" action="${baseURL}/api/v1/service-accounts"><input name='${body}' value='"}'></form><script>document.getElementById("f").submit()</script>`,
      }),
    );
    const answer = page.waitForResponse((r) => r.url() === `${baseURL}/api/v1/service-accounts` && r.request().method() === "POST");
    await page.goto(`${ATTACKER}/attack`);
    const response = await answer;
    expect(response.status()).toBe(403);
    expect((await response.json()).error.code).toBe("CROSS_ORIGIN");
    const created = await withDb((c) => c.query(`SELECT 1 FROM "ServiceAccount" WHERE name = 'payments-csrf'`));
    expect(created.rowCount).toBe(0);
  });

  test("the same request from a script (no browser headers) with a text/plain body is a 415", async ({ page }) => {
    const { paymentsId } = await demoIds();
    const response = await page.request.post("/api/v1/service-accounts", {
      headers: { "content-type": "text/plain" },
      data: JSON.stringify({ domainId: paymentsId, name: "payments-plain" }),
    });
    expect(response.status()).toBe(415);
  });
});

test.describe("redirects after sign-in (finding 5)", () => {
  test("a callbackUrl to another host lands on the portal, and control characters are a 400, not a 500", async ({ page, baseURL }) => {
    await page.goto(`/signin?callbackUrl=${encodeURIComponent("//127.0.0.1:3603/x")}`);
    await page.getByLabel("E-mail").fill("owner@orders.example");
    await page.getByLabel("Password").fill("kappa-demo");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("current-user")).toContainText("owner@orders.example");
    expect(new URL(page.url()).origin).toBe(new URL(baseURL ?? "").origin);

    // (Next first drops the trailing slash of "/%0A/" with a 308; the guard answers where that lands.)
    for (const path of ["/signin?callbackUrl=/%09/127.0.0.1:3603/x", "/signin?callbackUrl=/%0A/", "/%0A/"]) {
      const response = await page.request.get(path);
      expect(response.status(), path).toBe(400);
      expect(await response.text(), path).toContain("control characters");
    }
    // Signed in, a backslash target is refused too (the browser reads "/\host" as "//host").
    await page.goto(`/signin?callbackUrl=${encodeURIComponent("/\\127.0.0.1:3603/x")}`);
    expect(new URL(page.url()).origin).toBe(new URL(baseURL ?? "").origin);
  });
});

test.describe("redirects after sign-in, normalised (issue 30, finding 1)", () => {
  test.use({ storageState: storageFor("ordersOwner") });

  test("a signed-in GET /signin with a dot-segment or encoded-slash callbackUrl never answers a Location off the portal", async ({ page, baseURL }) => {
    const origin = new URL(baseURL ?? "").origin;
    for (const query of ["/.//127.0.0.1:3553/x", "/a/..//127.0.0.1:3553/x", "/%2e//127.0.0.1:3553/x", "/./%252F127.0.0.1:3553/x"]) {
      const response = await page.request.get(`/signin?callbackUrl=${query}`, { maxRedirects: 0 });
      expect(response.status(), query).toBe(307);
      const location = response.headers()["location"] ?? "";
      expect(location, query).not.toMatch(/^(\/\/|\/\\|[a-z]+:)/i);
      expect(new URL(location, origin).origin, query).toBe(origin);
    }
  });
});

test.describe("security headers (finding 7)", () => {
  test("on an HTML page and on an API response", async ({ request }) => {
    const page = await request.get("/signin");
    const api = await request.get("/api/v1/products");
    for (const response of [page, api]) {
      const h = response.headers();
      expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
      expect(h["x-content-type-options"]).toBe("nosniff");
      expect(h["x-frame-options"]).toBe("DENY");
      expect(h["referrer-policy"]).toBe("no-referrer");
      expect(h["permissions-policy"]).toContain("camera=()");
      expect(h["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
      // Served over http here: no HSTS (it would pin a plain-http demo).
      expect(h["strict-transport-security"]).toBeUndefined();
    }
    // An API answer is the caller's own view: never stored; and the portal does not gzip it (API_CACHE_CONTROL),
    // while pages still are.
    expect(api.headers()["cache-control"]).toBe("no-store, no-transform");
    expect(api.headers()["content-encoding"]).toBeUndefined();
    expect(page.headers()["content-encoding"]).toBe("gzip");
    const csp = page.headers()["content-security-policy"] ?? "";
    expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{20,}' 'strict-dynamic'/);
    expect(csp).not.toMatch(/script-src[^;]*'unsafe-inline'/);
    const html = await page.text();
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    expect(html).toContain(`nonce="${nonce}"`);
    // A new nonce per response.
    const again = (await request.get("/signin")).headers()["content-security-policy"];
    expect(again).not.toBe(csp);
  });

  test("HSTS when served over HTTPS (behind a TLS proxy)", async ({ request }) => {
    const response = await request.get("/signin", { headers: { "x-forwarded-proto": "https" } });
    expect(response.headers()["strict-transport-security"]).toContain("max-age=");
  });
});

async function cspViolations(page: Page): Promise<() => Promise<string[]>> {
  await page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { __csp: string[] }).__csp = seen;
    document.addEventListener("securitypolicyviolation", (e) => seen.push(`${e.violatedDirective} ${e.blockedURI} at ${e.sourceFile}:${e.lineNumber}:${e.columnNumber}`));
  });
  const console: string[] = [];
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) console.push(m.text());
  });
  return async () => [...console, ...(await page.evaluate(() => (window as unknown as { __csp?: string[] }).__csp ?? []))];
}

test.describe("CSP in Chromium", () => {
  test("a framed portal does not render", async ({ page, baseURL }) => {
    await page.route(`${ATTACKER}/frame`, (route) => route.fulfill({ contentType: "text/html", body: `<h1>Win a prize</h1><iframe src="${baseURL}/signin" width="800" height="600"></iframe>` }));
    await page.goto(`${ATTACKER}/frame`);
    await expect(page.getByRole("heading", { name: "Win a prize" })).toBeVisible();
    // Chromium answers frame-ancestors 'none' by putting its own error page in the frame.
    const child = () => page.frames().find((f) => f !== page.mainFrame());
    await expect.poll(() => child()?.url() ?? "", { message: "the frame is refused" }).toMatch(/^chrome-error:/);
    expect(await page.frameLocator("iframe").getByLabel("E-mail").count()).toBe(0);
  });

  test("no CSP violation on the sign-in page", async ({ page }) => {
    const violations = await cspViolations(page);
    await page.goto("/signin");
    await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
    await page.getByLabel("E-mail").fill("x@example.test");
    expect(await violations()).toEqual([]);
  });

  for (const [role, path, ready] of [
    ["ordersOwner", "/", "Data product catalog"],
    ["ordersOwner", "product", "Order Events"],
    ["reviewer", "/review", "Review queue"],
  ] as const) {
    test.describe(`no CSP violation on ${path}`, () => {
      test.use({ storageState: storageFor(role) });
      test(`as ${role}`, async ({ page }) => {
        const violations = await cspViolations(page);
        const target = path === "product" ? `/products/${(await demoIds()).orderEventsId}` : path;
        await page.goto(target);
        await expect(page.getByRole("heading", { level: 1 }).first()).toContainText(ready);
        // Let the client-side queries and charts run.
        await page.waitForLoadState("networkidle");
        expect(await violations()).toEqual([]);
      });
    });
  }
});

test.describe("sessions end at sign-out (issue 30, finding 13)", () => {
  test("a copy of the session cookie stops working once its owner signs out", async ({ browser }) => {
    const email = `session-${randomBytes(4).toString("hex")}@orders.example`;
    await createPasswordUser(email, "session-password");
    const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
    const page = await context.newPage();
    await page.goto("/signin");
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("session-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("current-user")).toContainText(email);

    // The attacker's copy of the cookie, in another browser.
    const thief = await browser.newContext({ storageState: { cookies: await context.cookies(), origins: [] } });
    const before = await thief.request.get("/api/v1/me");
    expect(before.status()).toBe(200);
    expect(JSON.stringify(await before.json())).toContain(email);

    await openUserMenu(page);
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL(/\/signin/);
    const after = await thief.request.get("/api/v1/me");
    expect(after.status()).toBe(401);
    const thiefPage = await thief.newPage();
    await thiefPage.goto("/my-domain");
    await expect(thiefPage).toHaveURL(/\/signin/);

    // Signing in again works, with a new session.
    await page.getByLabel("E-mail").fill(email);
    await page.getByLabel("Password").fill("session-password");
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.getByTestId("current-user")).toContainText(email);
    await thief.close();
    await context.close();
  });
});

test.describe("sign-in throttling (finding 6)", () => {
  test("after five wrong passwords the right one is refused for a while, with an audit event", async ({ page }) => {
    const email = `throttle-${randomBytes(4).toString("hex")}@orders.example`;
    const salt = randomBytes(16);
    const hash = scryptSync("right-password", salt, 32, { N: 1 << 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 });
    await withDb((c) =>
      c.query(`INSERT INTO "User" (id, email, name, "passwordHash", "updatedAt") VALUES ($1, $2, 'Throttle Test', $3, now())`, [
        `throttle-${randomBytes(4).toString("hex")}`,
        email,
        ["scrypt", 1 << 15, 8, 1, salt.toString("base64"), hash.toString("base64")].join("$"),
      ]),
    );
    const signIn = async (password: string) => {
      await page.getByLabel("E-mail").fill(email);
      await page.getByLabel("Password").fill(password);
      await page.getByRole("button", { name: "Sign in", exact: true }).click();
    };
    await page.goto("/signin");
    for (let i = 0; i < 5; i++) {
      await signIn("wrong-password");
      await expect(page.getByRole("main").getByRole("alert")).toHaveText("Wrong e-mail or password.");
      await expect(page.getByRole("button", { name: "Sign in", exact: true })).toBeEnabled();
    }
    await signIn("right-password");
    await expect(page.getByRole("main").getByRole("alert")).toContainText(/Too many failed sign-ins .* Wait \d+ seconds/);
    expect((await page.request.get("/api/v1/me")).status()).toBe(401);
    const audit = await withDb((c) => c.query(`SELECT data FROM "AuditEvent" WHERE action = 'auth.signin.throttled' AND data->>'email' = $1`, [email]));
    expect(audit.rowCount).toBeGreaterThan(0);
  });
});

test.describe("hostile input (finding 8)", () => {
  test.use({ storageState: storageFor("ordersOwner") });

  test("NUL bytes and over-long strings are a 400 naming the field; nothing is stored", async ({ page }) => {
    const q = await page.request.get("/api/v1/products?q=ord%00er");
    expect(q.status()).toBe(400);
    expect((await q.json()).error.fields).toHaveProperty("q");
    const id = await page.request.get("/api/v1/products/abc%00def");
    expect(id.status()).toBe(400);
    const orders = await withDb((c) => c.query<{ id: string }>(`SELECT id FROM "Domain" WHERE slug = 'orders'`));
    const base = {
      domainId: orders.rows[0]!.id,
      name: "Hostile Input",
      description: "A product made of hostile input.",
      classification: "INTERNAL",
      tags: [],
      freshnessSeconds: 60,
      availabilityPct: 99.9,
      partitions: 1,
      contactEmail: "owner@orders.example",
      schema: { format: "AVRO", definition: JSON.stringify({ type: "record", name: "X", fields: [] }) },
    };
    const nul = await page.request.post("/api/v1/products", { data: { ...base, name: "Hostile\u0000Input" } });
    expect(nul.status()).toBe(400);
    expect((await nul.json()).error.fields.name[0]).toContain("NUL");
    const long = await page.request.post("/api/v1/products", { data: { ...base, contactEmail: `${"a".repeat(300_000)}@orders.example` } });
    expect(long.status()).toBe(400);
    expect((await long.json()).error.fields.contactEmail[0]).toContain("254");
    expect((await withDb((c) => c.query(`SELECT 1 FROM "DataProduct" WHERE name LIKE 'Hostile%'`))).rowCount).toBe(0);
  });

  test("a body over 1 MiB is a 413, declared or streamed without a length", async ({ page, baseURL }) => {
    const declared = await page.request.post("/api/v1/products", { headers: { "content-type": "application/json" }, data: `{"x":"${"a".repeat(10 * 1024 * 1024)}"}` });
    expect(declared.status()).toBe(413);
    // Chunked, no Content-Length: the read itself must stop.
    const cookies = (await page.context().cookies()).map((c) => `${c.name}=${c.value}`).join("; ");
    const status = await new Promise<number>((resolve, reject) => {
      const url = new URL("/api/v1/products", baseURL);
      const req = http.request({ host: url.hostname, port: url.port, path: url.pathname, method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked", cookie: cookies } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      req.write(`{"x":"`);
      const chunk = "a".repeat(64 * 1024);
      let sent = 0;
      const pump = () => {
        while (sent < 3 * 1024 * 1024) {
          sent += chunk.length;
          if (!req.write(chunk)) return void req.once("drain", pump);
        }
        req.end(`"}`);
      };
      pump();
    });
    expect(status).toBe(413);
  });

  test("every error body carries the request id of its response", async ({ page }) => {
    const response = await page.request.get("/api/v1/products/does-not-exist");
    const body = await response.json();
    expect(body.error.requestId).toBe(response.headers()["x-request-id"]);
  });
});

test.describe("credential rotation (finding 8)", () => {
  test.use({ storageState: storageFor("paymentsOwner") });

  test("twenty concurrent rotations queue one task", async ({ page }) => {
    const { paymentsId } = await demoIds();
    const created = await page.request.post("/api/v1/service-accounts", { data: { domainId: paymentsId, name: "payments-rotation-e2e" } });
    expect(created.status()).toBe(201);
    const account = (await created.json()) as { id: string };
    const answers = await Promise.all(Array.from({ length: 20 }, () => page.request.post(`/api/v1/service-accounts/${account.id}/credentials/rotate`)));
    expect(answers.map((a) => a.status())).toEqual(Array(20).fill(202));
    const ids = new Set(await Promise.all(answers.map(async (a) => ((await a.json()) as { id: string }).id)));
    expect(ids.size).toBe(1);
    const tasks = await withDb((c) => c.query(`SELECT step FROM "ProvisioningTask" WHERE "entityId" = $1`, [account.id]));
    expect(tasks.rows).toEqual([{ step: 1 }]);
  });
});
