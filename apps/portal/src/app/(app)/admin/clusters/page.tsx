import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AdminTabs } from "../admin-tabs";
import { ClustersView } from "./clusters-view";

export const metadata: Metadata = { title: "Clusters · Admin" };

export default async function AdminClustersPage() {
  const actor = await requireActor("/admin/clusters");
  if (!hasGlobal(actor, "cluster:manage")) {
    return (
      <>
        <PageHeader title="Admin" />
        <EmptyState title="Not available">Only platform admins see and register the clusters.</EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Admin" description="Domains, their members and roles, global roles, single sign-on and the clusters named as environments. Every change is in the audit log." />
      <AdminTabs current="/admin/clusters" />
      <ClustersView />
    </>
  );
}
