import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { env } from "@/env";
import { requireActor } from "@/server/actor";
import { McpConnect } from "./mcp-connect";
import { TokensView } from "./tokens-view";

export const metadata: Metadata = { title: "API tokens" };

export default async function TokensPage() {
  await requireActor("/tokens");
  return (
    <>
      <PageHeader
        title="API tokens"
        description={<>For scripts, CI and the <code>kappa</code> CLI: send <code>Authorization: Bearer &lt;token&gt;</code> to any <code>/api/v1</code> route. A token acts as you, limited to its scopes; the secret is shown once and stored only as a hash.</>}
      />
      <div className="space-y-6">
        <TokensView />
        {/* The public URL (NEXTAUTH_URL), as clients outside the browser reach the portal. */}
        <McpConnect origin={new URL(env().NEXTAUTH_URL).origin} />
      </div>
    </>
  );
}
