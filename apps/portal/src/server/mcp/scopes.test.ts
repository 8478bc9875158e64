import { describe, expect, it } from "vitest";
import { scopeAllows } from "./scopes";

describe("scopeAllows", () => {
  it("lets `read` call reads only", () => {
    expect(scopeAllows("read", ["read"])).toBe(true);
    expect(scopeAllows("write", ["read"])).toBe(false);
    expect(scopeAllows("decide", ["read"])).toBe(false);
  });

  it("needs a domain's write scope to act for it, and review or write to decide", () => {
    expect(scopeAllows("read", ["write:orders"])).toBe(false);
    expect(scopeAllows("write", ["write:orders"])).toBe(true);
    expect(scopeAllows("decide", ["write:orders"])).toBe(true);
    expect(scopeAllows("decide", ["review"])).toBe(true);
    expect(scopeAllows("write", ["review", "admin"])).toBe(false);
  });
});
