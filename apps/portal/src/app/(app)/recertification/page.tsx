import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { RecertificationView } from "./recertification-view";

export const metadata: Metadata = { title: "Access recertification" };

export default async function RecertificationPage() {
  await requireActor("/recertification");
  return (
    <>
      <PageHeader title="Access recertification" description="Re-confirm who may read your products: keep or revoke each grant with a reason. Grants nobody has used come first; the schedule is set by the policy." />
      <RecertificationView />
    </>
  );
}
