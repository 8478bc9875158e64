import type { Metadata } from "next";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { ReviewQueueView } from "./review-queue";

export const metadata: Metadata = { title: "Review queue" };

export default async function ReviewPage() {
  const actor = await requireActor("/review");
  const governance = actor.globalRole === "GOVERNANCE";
  const owner = actor.memberships.some((m) => m.role === "OWNER");
  return (
    <>
      <PageHeader
        title="Review queue"
        description={
          governance
            ? "Everything governance decides, oldest first: products (new, new major versions, claims), schema versions, changes to live products, promotions, personal-data grants and every pending subscription."
            : "Subscription requests for your domains' products, oldest first."
        }
      />
      {governance || owner ? <ReviewQueueView reviewsProducts={governance} /> : <EmptyState title="Nothing to review">Only governance reviewers and domain owners have a review queue.</EmptyState>}
    </>
  );
}
