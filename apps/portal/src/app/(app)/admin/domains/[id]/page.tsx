import type { Metadata } from "next";
import { PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { MembersView } from "./members-view";

export const metadata: Metadata = { title: "Domain members" };

/** Platform admins and the domain's own owners manage its members (the API checks which). */
export default async function DomainMembersPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  await requireActor(`/admin/domains/${id}`);
  return (
    <>
      <PageHeader title="Domain members" description="Who belongs to the domain and with which role. Owners change products and decide subscriptions; members request subscriptions." />
      <MembersView domainId={id} />
    </>
  );
}
