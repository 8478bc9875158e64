import { expect } from "@playwright/test";
import { test } from "./fixtures";
import { storageFor } from "./roles";

test.describe("API error contract", () => {
  test("401 without a session, for reads and writes", async ({ playwright, baseURL }) => {
    const anonymous = await playwright.request.newContext({ baseURL });
    for (const response of [await anonymous.get("/api/v1/products"), await anonymous.post("/api/v1/products", { data: {} })]) {
      expect(response.status()).toBe(401);
      expect(await response.json()).toEqual({ error: { code: "UNAUTHENTICATED", message: expect.any(String), requestId: response.headers()["x-request-id"] } });
    }
    await anonymous.dispose();
  });

  test("404 for an unknown product, 409 for a transition that does not apply", async ({ playwright, baseURL }) => {
    const owner = await playwright.request.newContext({ baseURL, storageState: storageFor("ordersOwner") });
    const missing = await owner.get("/api/v1/products/does-not-exist");
    expect(missing.status()).toBe(404);
    expect((await missing.json()).error.code).toBe("NOT_FOUND");

    // "Order Events" is seeded APPROVED: it cannot be submitted for review again.
    const search = (await (await owner.get("/api/v1/products?q=Order%20Events&domain=orders")).json()) as { items: { id: string; name: string; status: string }[] };
    const approved = search.items.find((p) => p.name === "Order Events");
    expect(approved?.status).toBe("APPROVED");
    const again = await owner.post(`/api/v1/products/${approved?.id}/submit`);
    expect(again.status()).toBe(409);
    expect((await again.json()).error.code).toBe("INVALID_TRANSITION");
    await owner.dispose();
  });
});
