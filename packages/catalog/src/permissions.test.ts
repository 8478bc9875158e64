import { describe, expect, it } from "vitest";
import type { Actor } from "./actor.ts";
import { can, canInDomain, hasGlobal, permissionSummary } from "./permissions.ts";

const actor = (globalRole: Actor["globalRole"], memberships: Actor["memberships"] = []): Actor => ({
  id: "u",
  email: "u@example",
  name: "U",
  globalRole,
  memberships,
});
const ordersOwner = actor("USER", [{ domainId: "orders", domainSlug: "orders", role: "OWNER" }]);
const ordersMember = actor("USER", [{ domainId: "orders", domainSlug: "orders", role: "MEMBER" }]);
const reviewer = actor("GOVERNANCE");
const admin = actor("ADMIN");

describe("permissions", () => {
  it("lets owners change their own domain only", () => {
    expect(can(ordersOwner, "product:update", "orders")).toBe(true);
    expect(can(ordersOwner, "product:update", "payments")).toBe(false);
    expect(can(ordersOwner, "serviceAccount:create", "orders")).toBe(true);
  });

  it("lets members request subscriptions but not change products", () => {
    expect(can(ordersMember, "subscription:request", "orders")).toBe(true);
    expect(can(ordersMember, "product:update", "orders")).toBe(false);
    expect(can(ordersMember, "serviceAccount:create", "orders")).toBe(false);
  });

  it("gives governance review rights but no ownership", () => {
    expect(hasGlobal(reviewer, "product:review")).toBe(true);
    expect(can(reviewer, "subscription:decide", "orders")).toBe(true);
    expect(canInDomain(reviewer, "product:update", "orders")).toBe(false);
    expect(can(reviewer, "product:create", "orders")).toBe(false);
  });

  it("does not let an admin edit domain products or review", () => {
    expect(can(admin, "product:update", "orders")).toBe(false);
    expect(hasGlobal(admin, "product:review")).toBe(false);
    expect(hasGlobal(admin, "audit:read")).toBe(true);
  });

  it("summarises permissions for the UI", () => {
    const summary = permissionSummary(ordersOwner);
    expect(summary.global).toEqual([]);
    expect(summary.domains.orders).toContain("product:update");
  });
});
