import type { Metadata } from "next";
import { activePolicy, getProduct, isLargerThanDefault, liveEnvironments, quotaClassesFromPolicy } from "@kappa/catalog";
import { Link } from "@/components/link";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { SubscribeForm } from "./subscribe-form";

export const metadata: Metadata = { title: "Request a subscription" };

export default async function SubscribePage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/subscribe`);
  const product = await loadOrNotFound(getProduct(db(), actor, id));
  const [policy, live] = await Promise.all([activePolicy(db()), liveEnvironments(db(), product.id)]);
  const domains = actor.memberships.filter((m) => m.domainId !== product.domainId);
  const classes = quotaClassesFromPolicy(policy.document);
  const quotaClasses = Object.entries(classes.classes)
    .map(([name, c]) => ({ name, producerByteRate: c.producer_byte_rate, consumerByteRate: c.consumer_byte_rate, isDefault: name === classes.default, needsApproval: isLargerThanDefault(classes, name) }))
    .sort((a, b) => a.consumerByteRate - b.consumerByteRate || a.name.localeCompare(b.name));
  const ownerDomains = domains.filter((m) => m.role === "OWNER").map((m) => ({ id: m.domainId, slug: m.domainSlug }));
  return (
    <>
      <PageHeader
        title={`Request access to ${product.name}`}
        description={
          <>
            Read access to <span className="font-mono">{product.topicName}</span> for one of your domain&apos;s service accounts.{" "}
            <Link href={`/products/${product.id}`} className="text-indigo-700 hover:underline">Back to the product</Link>
          </>
        }
      />
      {domains.length === 0 ? (
        <EmptyState title="No domain to subscribe for">You can request access only for a domain you belong to, other than the product&apos;s own.</EmptyState>
      ) : (
        <SubscribeForm productId={product.id} productDomainId={product.domainId} classification={product.classification} ownerDomains={ownerDomains} policy={policy} environments={live.environments} quotaClasses={quotaClasses} />
      )}
    </>
  );
}
