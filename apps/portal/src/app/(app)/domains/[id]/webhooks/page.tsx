import { notFound } from "next/navigation";
import { canInDomain } from "@kappa/catalog";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { WebhooksView } from "./webhooks-view";

export const metadata = { title: "Webhooks · Kappa Mesh" };

export default async function WebhooksPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/domains/${id}/webhooks`);
  const domain = await db().domain.findUnique({ where: { id }, select: { id: true, name: true, slug: true } });
  // Only owners manage (and may know of) a domain's endpoints.
  if (!domain || !canInDomain(actor, "webhook:manage", id)) notFound();
  return <WebhooksView domain={domain} />;
}
