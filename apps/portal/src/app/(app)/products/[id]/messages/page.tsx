import type { Metadata } from "next";
import { getProduct } from "@kappa/catalog";
import { Link } from "@/components/link";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { MessagesView } from "./messages-view";

export const metadata: Metadata = { title: "Messages · Kappa Mesh" };

export default async function MessagesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/messages`);
  const product = await loadOrNotFound(getProduct(db(), actor, id));
  return (
    <>
      <PageHeader
        title={`Messages · ${product.name}`}
        description={
          <>
            Records of <span className="font-mono">{product.topicName}</span>, decoded with the product&apos;s schema. Fields tagged as personal data, keys that are such a field, and headers are masked on the server unless your access covers them (the portal masks; a subscription&apos;s own Kafka account reads records as written).{" "}
            <Link className="text-indigo-700 underline" href={`/products/${id}`}>Back to the product</Link>
          </>
        }
      />
      {product.viewer.canBrowse ? (
        <MessagesView productId={id} partitions={product.partitions} />
      ) : (
        <EmptyState title="You cannot read this product's records">Only its domain and active subscribers can browse its messages. Request a subscription first.</EmptyState>
      )}
    </>
  );
}
