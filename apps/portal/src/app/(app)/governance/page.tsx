import { diffLines } from "diff";
import type { Metadata } from "next";
import { ForbiddenError, policyOverview, policyVersionDetail, toJson } from "@kappa/catalog";
import { EmptyState, PageHeader } from "@/components/ui";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { GovernanceView, type DiffLine } from "./governance-view";

export const metadata: Metadata = { title: "Governance" };

/** Line diff of one policy version against the one before it, computed on the server. */
function diffOf(before: string, after: string): DiffLine[] {
  return diffLines(before, after).flatMap((part) =>
    part.value.replace(/\n$/, "").split("\n").map((text): DiffLine => ({ kind: part.added ? "added" : part.removed ? "removed" : "same", text })),
  );
}

export default async function GovernancePage({ searchParams }: { searchParams: Promise<{ diff?: string }> }) {
  const actor = await requireActor("/governance");
  let overview;
  try {
    overview = toJson(await policyOverview(db(), actor));
  } catch (error) {
    if (error instanceof ForbiddenError) {
      return (
        <>
          <PageHeader title="Governance" />
          <EmptyState title="Only governance reviewers and platform admins see this page" />
        </>
      );
    }
    throw error;
  }
  const requested = Number((await searchParams).diff ?? overview.current.version);
  const shown = Number.isInteger(requested) && requested >= 1 && requested <= overview.current.version ? requested : overview.current.version;
  const detail = await policyVersionDetail(db(), actor, shown);
  return (
    <>
      <PageHeader
        title="Governance"
        description="The policy in force, the products it finds in violation, and every earlier version with who changed it and why. A policy change never edits a product: owners fix what is listed here."
      />
      <GovernanceView
        overview={overview}
        diff={{ version: shown, reason: detail.reason, createdByEmail: detail.createdByEmail, createdAt: detail.createdAt.toISOString(), lines: diffOf(detail.previousSource ?? "", detail.source) }}
      />
    </>
  );
}
