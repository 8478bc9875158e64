import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AdminTabs } from "../admin-tabs";
import { UsersView } from "./users-view";

export const metadata: Metadata = { title: "Users & roles · Admin" };

export default async function AdminUsersPage() {
  const actor = await requireActor("/admin/users");
  return (
    <>
      <PageHeader title="Admin" description="Domains, their members and roles, global roles and single sign-on. Every change is in the audit log." />
      {hasGlobal(actor, "user:manage") ? (
        <>
          <AdminTabs current="/admin/users" />
          <UsersView />
        </>
      ) : (
        <EmptyState title="Not available">Only platform admins manage users and global roles.</EmptyState>
      )}
    </>
  );
}
