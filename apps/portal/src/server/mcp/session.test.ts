import { describe, expect, it } from "vitest";
import { clientLabel, signSession, verifySession } from "./session";

const SECRET = "a-portal-secret-of-some-length";

describe("MCP session ids", () => {
  it("round-trip the client for the token they were opened with", () => {
    const id = signSession(SECRET, { client: "Claude Desktop 0.10.2", tokenId: "tok1" });
    expect(id).toMatch(/^v1\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(verifySession(SECRET, id, "tok1")).toEqual({ client: "Claude Desktop 0.10.2", tokenId: "tok1" });
  });

  it("are worthless with another token, another secret, or a changed payload", () => {
    const id = signSession(SECRET, { client: "vscode 1.99", tokenId: "tok1" });
    expect(verifySession(SECRET, id, "tok2")).toBeNull();
    expect(verifySession("another-secret-of-some-length", id, "tok1")).toBeNull();
    const [v, , mac] = id.split(".");
    const forged = `${v}.${Buffer.from(JSON.stringify({ c: "trusted-bot 1", t: "tok1" })).toString("base64url")}.${mac}`;
    expect(verifySession(SECRET, forged, "tok1")).toBeNull();
    for (const bad of [null, "", "v1", "v1.x.y.z", "v2.abc.def", "x".repeat(5000)]) expect(verifySession(SECRET, bad, "tok1")).toBeNull();
  });

  it("labels the client by name and version, bounded and without control characters", () => {
    expect(clientLabel({ name: "Claude Desktop", version: "0.10.2" })).toBe("Claude Desktop 0.10.2");
    expect(clientLabel({ name: "evil\r\nadmin", version: 7 })).toBe("eviladmin");
    expect(clientLabel(undefined)).toBe("unknown-client");
    expect(clientLabel({ name: "n".repeat(500), version: "v".repeat(500) }).length).toBe(201);
  });
});
