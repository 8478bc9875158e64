import type { ReactNode } from "react";
import { hasGlobal, type Permission } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AdminTabs, type AdminHref } from "./admin-tabs";

const DESCRIPTION =
  "Domains, their members and roles, global roles, single sign-on, reserved Kafka principals and the clusters named as environments. Every change is in the audit log.";

/**
 * The shape every admin page shares: signed in (or sent to sign-in), the
 * section's global permission checked on the server, then the header and the
 * admin tabs above the section's content. `content` runs only when the
 * actor holds the permission, so nothing of the section is read otherwise.
 */
export async function adminSection(current: AdminHref, permission: Permission, deniedText: string, content: () => ReactNode): Promise<ReactNode> {
  const actor = await requireActor(current);
  if (!hasGlobal(actor, permission)) {
    return (
      <>
        <PageHeader title="Admin" />
        <EmptyState title="Not available">{deniedText}</EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Admin" description={DESCRIPTION} />
      <AdminTabs current={current} />
      {content()}
    </>
  );
}
