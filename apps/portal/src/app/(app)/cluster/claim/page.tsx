import type { Metadata } from "next";
import { activePolicy, clusterTopic, hasGlobal, primaryTieredStorage } from "@kappa/catalog";
import { ProductForm } from "@/components/product-form";
import { ApproveClaimSampling } from "@/components/schema-inference";
import { DefinitionList, EmptyState, PageHeader } from "@/components/ui";
import { claimFormValues, SAMPLING_REFUSED } from "@/lib/claim-form";
import { requireActor } from "@/server/actor";
import { db } from "@/server/db";

export const metadata: Metadata = { title: "Claim a topic as data product" };

/**
 * The product form, prefilled from an unmanaged topic (partitions, retention,
 * cleanup policy). The schema is pasted, uploaded or inferred from sample
 * records — by the worker, since the portal holds no Kafka read access.
 */
export default async function ClaimPage({ searchParams }: { searchParams: Promise<{ topic?: string }> }) {
  const { topic: name } = await searchParams;
  const actor = await requireActor(`/cluster/claim${name ? `?topic=${encodeURIComponent(name)}` : ""}`);
  const ownedIds = actor.memberships.filter((m) => m.role === "OWNER").map((m) => m.domainId);
  const admin = hasGlobal(actor, "platform:admin");
  // Admins approve sampling for the open claim on the topic (schema inference reads records no grant covers).
  const openClaim = name && admin ? await db().topicClaim.findUnique({ where: { topic: name }, select: { samplingApprovedAt: true, product: { select: { status: true, domain: { select: { name: true } } } } } }) : null;
  const approval =
    name && openClaim && ["DRAFT", "IN_REVIEW", "REJECTED"].includes(openClaim.product.status) ? (
      <ApproveClaimSampling topic={name} domain={openClaim.product.domain.name} approvedAt={openClaim.samplingApprovedAt?.toISOString() ?? null} />
    ) : null;
  if (!name || ownedIds.length === 0) {
    return (
      <>
        <PageHeader title="Claim a topic" />
        {approval}
        <EmptyState title={ownedIds.length === 0 ? "Only domain owners claim topics" : "Choose a topic first"}>Pick an unmanaged topic on the Cluster page{admin ? "; admins browse but owners claim" : ""}.</EmptyState>
      </>
    );
  }
  const topic = await clusterTopic(db(), actor, name);
  const domains = await db().domain.findMany({ where: { id: { in: ownedIds }, archivedAt: null }, select: { id: true, name: true, slug: true }, orderBy: { name: "asc" } });
  const first = domains[0];
  const [policy, tieredStorage] = await Promise.all([activePolicy(db()), primaryTieredStorage(db())]);
  if (topic.managed || !first) {
    return (
      <>
        <PageHeader title="Claim a topic" />
        <EmptyState title={topic.managed ? "This topic is a data product already" : "You own no active domain"} />
      </>
    );
  }
  const configs = (topic.configs ?? {}) as Record<string, string>;
  return (
    <>
      <PageHeader title={<>Claim <span className="font-mono">{topic.name}</span></>} description="Register a data product over this existing topic. Review works as for any product; on approval the worker adopts the topic as it is — records kept, partitions only grown, configs set to what you approve here." />
      <div className="mb-6 rounded-lg bg-white p-4 shadow-sm ring-1 ring-slate-200">
        <DefinitionList
          items={[
            ["Partitions now", topic.partitions],
            ["Config overrides", Object.keys(configs).length ? Object.entries(configs).map(([k, v]) => `${k}=${v}`).join(", ") : "none"],
            ["Existing ACLs", `${Array.isArray(topic.acls) ? topic.acls.length : 0} (the reviewer decides which stay)`],
            ["Consumer groups", `${Array.isArray(topic.groups) ? topic.groups.length : 0} with commits`],
          ]}
        />
      </div>
      {approval}
      <ProductForm
        mode={{ kind: "create", domains, claimTopic: topic.name }}
        defaults={claimFormValues(first.id, actor.email, topic.name, topic.partitions, configs)}
        policy={policy}
        tieredStorage={tieredStorage}
        // Sampling a topic nobody has claimed is the admins' (issue 30, finding 5); an owner's claim gets it once an admin approves.
        inference={admin ? { topic: topic.name } : { refused: SAMPLING_REFUSED }}
      />
    </>
  );
}
