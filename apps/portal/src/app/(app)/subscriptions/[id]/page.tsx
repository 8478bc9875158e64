import { ForbiddenError, NotFoundError, subscriptionDetail, toJson } from "@kappa/catalog";
import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { EmptyState, PageHeader } from "@/components/ui";
import { env } from "@/env";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { SubscriptionView } from "./subscription-view";

export const metadata: Metadata = { title: "Subscription" };

export default async function SubscriptionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/subscriptions/${id}`);
  const detail = await subscriptionDetail(db(), actor, id, env().KAFKA_BOOTSTRAP_DISPLAY).catch((error: unknown) => {
    if (error instanceof NotFoundError) notFound();
    if (error instanceof ForbiddenError) return error;
    throw error;
  });
  if (detail instanceof ForbiddenError) {
    return (
      <>
        <PageHeader title="Subscription" />
        <EmptyState title="Not available">{detail.message}</EmptyState>
      </>
    );
  }
  return <SubscriptionView initial={toJson(detail)} />;
}
