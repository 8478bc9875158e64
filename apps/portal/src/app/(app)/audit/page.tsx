import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { AuditView } from "./audit-view";

export const metadata: Metadata = { title: "Audit log" };

export default async function AuditPage() {
  const actor = await requireActor("/audit");
  return (
    <>
      <PageHeader title="Audit log" description="Every decision and change, append-only, newest first." />
      {hasGlobal(actor, "audit:read") ? <AuditView /> : <EmptyState title="Not available">Only governance reviewers and platform admins read the whole audit log. Owners see their products&apos; history on each product page.</EmptyState>}
    </>
  );
}
