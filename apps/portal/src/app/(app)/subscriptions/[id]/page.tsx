import type { Metadata } from "next";
import { ForbiddenError, subscriptionDetail, subscriptionSuccessorNotice, toJson } from "@kappa/catalog";
import { SubscriptionSuccessorNotice } from "@/components/successor-notice";
import { EmptyState, PageHeader } from "@/components/ui";
import { env } from "@/env";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadPageData } from "@/server/page-data";
import { SubscriptionView } from "./subscription-view";

export const metadata: Metadata = { title: "Subscription" };

export default async function SubscriptionPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/subscriptions/${id}`);
  const loaded = await loadPageData(Promise.all([subscriptionDetail(db(), actor, id, env().KAFKA_BOOTSTRAP_DISPLAY), subscriptionSuccessorNotice(db(), actor, id)]));
  if (loaded instanceof ForbiddenError) {
    return (
      <>
        <PageHeader title="Subscription" />
        <EmptyState title="Not available">{loaded.message}</EmptyState>
      </>
    );
  }
  const [detail, successor] = loaded;
  return (
    <div className="space-y-6">
      {successor && <SubscriptionSuccessorNotice subscriptionId={id} initial={toJson(successor)} />}
      <SubscriptionView initial={toJson(detail)} registryUrl={`${env().NEXTAUTH_URL.replace(/\/$/, "")}/api/schema-registry`} />
    </div>
  );
}
