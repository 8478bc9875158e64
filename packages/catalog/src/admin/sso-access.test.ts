import { describe, expect, it } from "vitest";
import { groupsFromClaim, ssoAccessFor, type GroupMapping } from "./sso-access.ts";

const mappings: GroupMapping[] = [
  { group: "orders-team", domainId: "orders", role: "MEMBER", globalRole: null },
  { group: "orders-leads", domainId: "orders", role: "OWNER", globalRole: null },
  { group: "payments-team", domainId: "payments", role: "MEMBER", globalRole: null },
  { group: "governance", domainId: null, role: null, globalRole: "GOVERNANCE" },
  { group: "platform", domainId: null, role: null, globalRole: "ADMIN" },
];

describe("ssoAccessFor", () => {
  it("grants the strongest role per domain and the strongest global role", () => {
    const access = ssoAccessFor(mappings, ["orders-team", "orders-leads", "governance"]);
    expect(Object.fromEntries(access.memberships)).toEqual({ orders: "OWNER" });
    expect(access.globalRole).toBe("GOVERNANCE");
    expect(ssoAccessFor(mappings, ["governance", "platform"]).globalRole).toBe("ADMIN");
  });

  it("grants nothing for unknown groups and compares exactly", () => {
    const access = ssoAccessFor(mappings, ["Orders-Team", "orders-team ", "other"]);
    expect(access.memberships.size).toBe(0);
    expect(access.globalRole).toBe("USER");
  });
});

describe("groupsFromClaim", () => {
  it("reads arrays, single strings and separated strings; ignores anything else", () => {
    expect(groupsFromClaim(["a", "b", 3, ""])).toEqual(["a", "b"]);
    expect(groupsFromClaim("a b,c")).toEqual(["a", "b", "c"]);
    expect(groupsFromClaim(undefined)).toEqual([]);
    expect(groupsFromClaim({ a: 1 })).toEqual([]);
  });
});
