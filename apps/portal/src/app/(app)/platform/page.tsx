import type { Metadata } from "next";
import { hasGlobal } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { PlatformView } from "./platform-view";

export const metadata: Metadata = { title: "Platform" };

export default async function PlatformPage() {
  const actor = await requireActor("/platform");
  return (
    <>
      <PageHeader title="Platform" description="Provisioning health: the worker's task queue, its instances, and what the last full reconciles found." />
      {hasGlobal(actor, "platform:admin") ? <PlatformView /> : <EmptyState title="Not available">Only platform admins see the platform view.</EmptyState>}
    </>
  );
}
