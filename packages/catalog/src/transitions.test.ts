import { describe, expect, it } from "vitest";
import { InvalidTransitionError } from "./errors.ts";
import { nextProductStatus, nextSubscriptionStatus, PRODUCT_TRANSITIONS } from "./transitions.ts";

describe("product status transitions", () => {
  it("follows DRAFT → IN_REVIEW → APPROVED → PROVISIONING → ACTIVE → DEPRECATED → RETIRED", () => {
    let s = nextProductStatus("DRAFT", "submit");
    expect(s).toBe("IN_REVIEW");
    s = nextProductStatus(s, "approve");
    expect(s).toBe("APPROVED");
    s = nextProductStatus(s, "startProvisioning");
    expect(s).toBe("PROVISIONING");
    s = nextProductStatus(s, "activate");
    expect(s).toBe("ACTIVE");
    s = nextProductStatus(s, "deprecate");
    expect(s).toBe("DEPRECATED");
    expect(nextProductStatus(s, "retire")).toBe("RETIRED");
  });

  it("lets a rejected product be submitted again", () => {
    expect(nextProductStatus(nextProductStatus("IN_REVIEW", "reject"), "submit")).toBe("IN_REVIEW");
  });

  it("refuses every transition not in the table, naming state and action", () => {
    const statuses = ["DRAFT", "IN_REVIEW", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED", "RETIRED", "REJECTED"] as const;
    let refused = 0;
    for (const [action, rule] of Object.entries(PRODUCT_TRANSITIONS)) {
      for (const status of statuses) {
        if ((rule.from as readonly string[]).includes(status)) continue;
        expect(() => nextProductStatus(status, action as keyof typeof PRODUCT_TRANSITIONS)).toThrow(InvalidTransitionError);
        refused++;
      }
    }
    expect(refused).toBeGreaterThan(40);
    expect(() => nextProductStatus("DRAFT", "approve")).toThrow("Cannot approve a product that is DRAFT.");
  });
});

describe("subscription status transitions", () => {
  it("goes REQUESTED → APPROVED → ACTIVE → REVOKED", () => {
    expect(nextSubscriptionStatus("REQUESTED", "approve")).toBe("APPROVED");
    expect(nextSubscriptionStatus("APPROVED", "activate")).toBe("ACTIVE");
    expect(nextSubscriptionStatus("ACTIVE", "revoke")).toBe("REVOKED");
    expect(nextSubscriptionStatus("APPROVED", "revoke")).toBe("REVOKED");
  });

  it("refuses deciding twice and reviving revoked access", () => {
    expect(() => nextSubscriptionStatus("APPROVED", "approve")).toThrow(InvalidTransitionError);
    expect(() => nextSubscriptionStatus("REJECTED", "approve")).toThrow(InvalidTransitionError);
    expect(() => nextSubscriptionStatus("REVOKED", "revoke")).toThrow(InvalidTransitionError);
    expect(() => nextSubscriptionStatus("REQUESTED", "revoke")).toThrow(InvalidTransitionError);
  });
});
