import type { Metadata } from "next";
import { Card, DefinitionList } from "@/components/ui";
import { env, oidcEnabled } from "@/env";
import { adminSection } from "../admin-section";
import { SsoMappingView } from "./sso-view";

export const metadata: Metadata = { title: "Single sign-on · Admin" };

export default function AdminSsoPage() {
  return adminSection("/admin/sso", "user:manage", "Only platform admins see the single-sign-on configuration.", () => <SsoSettings />);
}

function SsoSettings() {
  const e = env();
  const enabled = oidcEnabled(e);
  return (
    <div className="space-y-6">
      <Card title="OpenID Connect provider">
        <DefinitionList
          items={[
            ["Status", <span key="s" data-testid="oidc-status">{enabled ? "enabled" : "not configured (set OIDC_ISSUER, OIDC_CLIENT_ID, OIDC_CLIENT_SECRET)"}</span>],
            ["Issuer", enabled ? <span key="i" className="font-mono text-xs">{e.OIDC_ISSUER}</span> : "—"],
            ["Client id", enabled ? <span key="c" className="font-mono text-xs">{e.OIDC_CLIENT_ID}</span> : "—"],
            ["Groups claim", <span key="g" className="font-mono text-xs" data-testid="oidc-groups-claim">{e.OIDC_GROUPS_CLAIM}</span>],
            ["Scopes requested", <span key="sc" className="font-mono text-xs">{e.OIDC_SCOPE}</span>],
            ["Sign-in button", e.OIDC_NAME],
          ]}
        />
        <p className="mt-3 text-sm text-slate-600">
          At each sign-in the portal reads the <span className="font-mono">{e.OIDC_GROUPS_CLAIM}</span> claim (from the verified id token, or userinfo when the token lacks it) and applies the mapping below:
          memberships and global roles that SSO granted follow the groups — added, changed or removed. Roles an admin or owner set by hand stay as they are.
        </p>
      </Card>
      <SsoMappingView />
    </div>
  );
}
