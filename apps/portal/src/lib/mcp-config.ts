/*
 * How to connect an MCP client to the portal's MCP server (/api/mcp), as
 * configuration the API tokens page shows for copying. The token is never put
 * in: each snippet has a placeholder (or asks for the token when the client
 * can), so a screenshot or a shared config file leaks nothing.
 */

export const MCP_TOKEN_PLACEHOLDER = "<your API token>";

export interface McpClientConfig {
  id: "claude-desktop" | "claude-code" | "vscode" | "cursor";
  label: string;
  /** Where the snippet goes. */
  where: string;
  language: "json" | "shell";
  text: string;
}

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** The endpoint for a portal served at `origin` (e.g. http://localhost:3000). */
export function mcpUrl(origin: string): string {
  return `${origin.replace(/\/+$/, "")}/api/mcp`;
}

export function mcpClientConfigs(origin: string): McpClientConfig[] {
  const url = mcpUrl(origin);
  const bearer = `Bearer ${MCP_TOKEN_PLACEHOLDER}`;
  return [
    {
      id: "claude-desktop",
      label: "Claude Desktop",
      where: "claude_desktop_config.json (Settings → Developer → Edit Config); the mcp-remote bridge sends the header",
      language: "json",
      // No space after "Authorization:" inside args: some launchers split arguments on spaces.
      text: json({ mcpServers: { "kappa-mesh": { command: "npx", args: ["-y", "mcp-remote", url, "--header", "Authorization:${KAPPA_MESH_AUTH}"], env: { KAPPA_MESH_AUTH: bearer } } } }),
    },
    {
      id: "claude-code",
      label: "Claude Code",
      where: "a terminal",
      language: "shell",
      text: `claude mcp add --transport http kappa-mesh ${url} --header "Authorization: ${bearer}"`,
    },
    {
      id: "vscode",
      label: "VS Code",
      where: ".vscode/mcp.json (VS Code asks for the token once and stores it as a secret)",
      language: "json",
      text: json({
        inputs: [{ type: "promptString", id: "kappa-mesh-token", description: "Kappa Mesh API token", password: true }],
        servers: { "kappa-mesh": { type: "http", url, headers: { Authorization: "Bearer ${input:kappa-mesh-token}" } } },
      }),
    },
    {
      id: "cursor",
      label: "Cursor",
      where: "~/.cursor/mcp.json",
      language: "json",
      text: json({ mcpServers: { "kappa-mesh": { url, headers: { Authorization: bearer } } } }),
    },
  ];
}
