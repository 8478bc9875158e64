import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AdminTabs } from "../admin-tabs";
import { DomainsView } from "./domains-view";

export const metadata: Metadata = { title: "Domains · Admin" };

export default async function AdminDomainsPage() {
  const actor = await requireActor("/admin/domains");
  return (
    <>
      <PageHeader title="Admin" description="Domains, their members and roles, global roles and single sign-on. Every change is in the audit log." />
      {hasGlobal(actor, "domain:manage") ? (
        <>
          <AdminTabs current="/admin/domains" />
          <DomainsView />
        </>
      ) : (
        <EmptyState title="Not available">Only platform admins manage domains. Domain owners manage their members from My domain.</EmptyState>
      )}
    </>
  );
}
