import { describe, expect, it } from "vitest";
import { MCP_TOKEN_PLACEHOLDER, mcpClientConfigs, mcpUrl } from "./mcp-config";

describe("MCP client configurations", () => {
  it("point every client at the portal's /api/mcp with a bearer header placeholder", () => {
    const configs = mcpClientConfigs("https://mesh.example.com/");
    expect(configs.map((c) => c.label)).toEqual(["Claude Desktop", "Claude Code", "VS Code", "Cursor"]);
    for (const c of configs) expect(c.text, c.label).toContain("https://mesh.example.com/api/mcp");
    expect(mcpUrl("http://localhost:3000")).toBe("http://localhost:3000/api/mcp");
  });

  it("are valid JSON where they are JSON, with the header each client sends", () => {
    const byId = Object.fromEntries(mcpClientConfigs("http://localhost:3000").map((c) => [c.id, c]));
    const vscode = JSON.parse(byId.vscode!.text) as { servers: Record<string, { type: string; headers: Record<string, string> }> };
    expect(vscode.servers["kappa-mesh"]).toMatchObject({ type: "http", headers: { Authorization: "Bearer ${input:kappa-mesh-token}" } });
    const cursor = JSON.parse(byId.cursor!.text) as { mcpServers: Record<string, { headers: Record<string, string> }> };
    expect(cursor.mcpServers["kappa-mesh"]?.headers.Authorization).toBe(`Bearer ${MCP_TOKEN_PLACEHOLDER}`);
    const desktop = JSON.parse(byId["claude-desktop"]!.text) as { mcpServers: Record<string, { args: string[]; env: Record<string, string> }> };
    expect(desktop.mcpServers["kappa-mesh"]?.args).toContain("Authorization:${KAPPA_MESH_AUTH}");
    expect(desktop.mcpServers["kappa-mesh"]?.env.KAPPA_MESH_AUTH).toBe(`Bearer ${MCP_TOKEN_PLACEHOLDER}`);
    expect(byId["claude-code"]!.text).toBe(`claude mcp add --transport http kappa-mesh http://localhost:3000/api/mcp --header "Authorization: Bearer ${MCP_TOKEN_PLACEHOLDER}"`);
  });
});
