import type { Metadata } from "next";
import { getProduct } from "@kappa/catalog";
import { Link } from "@/components/link";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { loadOrNotFound } from "@/server/page-data";
import { StateView } from "./state-view";

export const metadata: Metadata = { title: "Latest state · Kappa Mesh" };

export default async function MessagesPage({ params }: { params: Promise<{ id: string }> }) {
  const { id } = await params;
  const actor = await requireActor(`/products/${id}/state`);
  const product = await loadOrNotFound(getProduct(db(), actor, id));
  return (
    <>
      <PageHeader
        title={`Latest state · ${product.name}`}
        description={
          <>
            The latest value per key of <span className="font-mono">{product.topicName}</span> (a compacted product), kept up to date by the worker from the stream: no copy in a warehouse. Personal data is masked as in the message browser.{" "}
            <Link className="text-indigo-700 underline" href={`/products/${id}`}>Back to the product</Link>
          </>
        }
      />
      {product.cleanupPolicy !== "compact" ? (
        <EmptyState title="Not a compacted product">Only products with cleanup.policy=compact keep a latest-state view.</EmptyState>
      ) : product.viewer.canBrowse ? (
        <StateView productId={id} canRebuild={product.viewer.isOwner} />
      ) : (
        <EmptyState title="You cannot read this product's records">Only its domain and active subscribers can read its latest state. Request a subscription first.</EmptyState>
      )}
    </>
  );
}
