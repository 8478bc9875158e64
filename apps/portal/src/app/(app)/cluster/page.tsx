import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { ClusterTopicsView } from "./cluster-topics-view";

export const metadata: Metadata = { title: "Cluster topics" };

export default async function ClusterPage() {
  const actor = await requireActor("/cluster");
  const allowed = hasGlobal(actor, "platform:admin") || actor.memberships.some((m) => m.role === "OWNER");
  return (
    <>
      <PageHeader title="Cluster topics" description="Every topic on the cluster as the worker last saw it. Managed topics belong to a data product; unmanaged ones can be claimed as one." />
      {allowed ? <ClusterTopicsView canClaim={actor.memberships.some((m) => m.role === "OWNER")} /> : <EmptyState title="Not available">Platform admins and domain owners browse the cluster&apos;s topics.</EmptyState>}
    </>
  );
}
