import type { Metadata } from "next";
import { activePolicy, primaryTieredStorage } from "@kappa/catalog";
import { ProductForm } from "@/components/product-form";
import { EmptyState, PageHeader } from "@/components/ui";
import { emptyFormValues } from "@/lib/product-form";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";

export const metadata: Metadata = { title: "Register a data product" };

export default async function NewProductPage() {
  const actor = await requireActor("/products/new");
  const ownedIds = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  const domains = await db().domain.findMany({ where: { id: { in: ownedIds } }, select: { id: true, name: true, slug: true }, orderBy: { name: "asc" } });
  const first = domains[0];
  const [policy, tieredStorage] = await Promise.all([activePolicy(db()), primaryTieredStorage(db())]);
  return (
    <>
      <PageHeader title="Register a data product" description="It starts as a draft; submit it for review when it is ready. Governance approval creates the topic." />
      {first ? (
        <ProductForm mode={{ kind: "create", domains }} defaults={emptyFormValues(first.id, actor.email)} policy={policy} tieredStorage={tieredStorage} flink={{ configured: flinkSettings() !== null }} />
      ) : (
        <EmptyState title="You do not own a domain">Only domain owners can register data products. Ask a platform admin to make you an owner.</EmptyState>
      )}
    </>
  );
}
