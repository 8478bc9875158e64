"use client";

import { useState } from "react";
import { Button, Card } from "@/components/ui";
import { mcpClientConfigs, mcpUrl } from "@/lib/mcp-config";

/**
 * How to connect an AI agent (an MCP client) to the catalog: the endpoint and
 * a configuration per common client to copy, with a placeholder where the
 * token goes (the token itself is shown once, above, when it is created).
 */
export function McpConnect({ origin }: { origin: string }) {
  const configs = mcpClientConfigs(origin);
  const [chosen, setChosen] = useState(configs[0]?.id ?? "vscode");
  const [copied, setCopied] = useState<string | null>(null);
  const config = configs.find((c) => c.id === chosen) ?? configs[0];
  if (!config) return null;
  const copy = () => {
    void navigator.clipboard?.writeText(config.text).then(() => setCopied(config.id), () => setCopied(null));
  };
  return (
    <Card title="Connect an AI agent (MCP)">
      <div className="space-y-3 text-sm text-slate-700" data-testid="mcp-connect">
        <p>
          Agents such as Claude or Copilot can search the catalog, read contracts and schemas, request access and sample records through the Model Context Protocol at{" "}
          <code className="rounded bg-slate-100 px-1 font-mono" data-testid="mcp-url">{mcpUrl(origin)}</code> (Streamable HTTP). The agent acts as the token&apos;s user with the
          same permissions, policies and approvals; every call is in the audit log under the client&apos;s name. Give the token <code>read</code> to find and read,{" "}
          <code>write:&lt;domain&gt;</code> to request access for that domain, <code>review</code> to decide reviews.
        </p>
        <div role="tablist" aria-label="MCP client" className="flex flex-wrap gap-2">
          {configs.map((c) => (
            <button
              key={c.id}
              type="button"
              role="tab"
              aria-selected={c.id === config.id}
              onClick={() => { setChosen(c.id); setCopied(null); }}
              className={c.id === config.id ? "rounded-md bg-indigo-600 px-3 py-1.5 text-sm font-medium text-white" : "rounded-md px-3 py-1.5 text-sm font-medium text-slate-700 ring-1 ring-slate-300 hover:bg-slate-50"}
            >
              {c.label}
            </button>
          ))}
        </div>
        <div role="tabpanel" aria-label={`${config.label} configuration`}>
          <p className="text-xs text-slate-500">Goes in: {config.where}. Replace the placeholder with your token.</p>
          <pre className="mt-1 overflow-x-auto rounded-md bg-slate-900 p-3 font-mono text-xs text-slate-100" data-testid="mcp-config">{config.text}</pre>
          <div className="mt-2 flex items-center gap-2">
            <Button variant="secondary" onClick={copy}>Copy configuration</Button>
            {copied === config.id && <span role="status" className="text-xs text-emerald-700">Copied.</span>}
          </div>
        </div>
      </div>
    </Card>
  );
}
