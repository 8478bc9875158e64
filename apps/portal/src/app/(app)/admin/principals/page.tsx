import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AdminTabs } from "../admin-tabs";
import { ReservedPrincipalsView } from "./principals-view";

export const metadata: Metadata = { title: "Reserved principals · Admin" };

export default async function AdminPrincipalsPage() {
  const actor = await requireActor("/admin/principals");
  if (!hasGlobal(actor, "platform:admin")) {
    return (
      <>
        <PageHeader title="Admin" />
        <EmptyState title="Not available">Only platform admins see the reserved Kafka principals.</EmptyState>
      </>
    );
  }
  return (
    <>
      <PageHeader title="Admin" description="Domains, their members and roles, global roles, single sign-on and reserved Kafka principals. Every change is in the audit log." />
      <AdminTabs current="/admin/principals" />
      <ReservedPrincipalsView />
    </>
  );
}
