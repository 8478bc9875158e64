import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { CostsView } from "./costs-view";

export const metadata: Metadata = { title: "Costs" };

export default async function CostsPage() {
  await requireActor("/costs");
  return (
    <>
      <PageHeader
        title="Costs"
        description="Showback and chargeback: what each domain's products cost in a month, from the usage the worker observed and the policy's price list, and the share charged to the domains that read them."
      />
      <CostsView />
    </>
  );
}
