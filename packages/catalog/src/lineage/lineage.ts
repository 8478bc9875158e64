import { z } from "zod";
import { parseInput } from "../action.ts";
import type { Actor } from "../actor.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { hasGlobal } from "../permissions.ts";
import { unknownGrants } from "../queries/unknown-grants.ts";

/*
 * The lineage graph: products, the service accounts that read them, consumer
 * groups nobody subscribed for, and derived products with their declared
 * inputs. Every read edge says whether access was *granted* (an APPROVED or
 * ACTIVE subscription, i.e. ACLs the worker keeps) and whether it is *observed*
 * (the worker's cluster scan saw a consumer group of that account with members
 * or advancing commits on the topic within `unusedDays`). What Kafka can and
 * cannot tell is in the worker's observe/cluster-scan.ts and the ops note.
 */

export const lineageQueryInput = z.object({
  productId: z.string().max(100).trim().min(1).optional(),
  /** A grant with no observed consumption for this many days counts as unused. */
  unusedDays: z.coerce.number().int().min(1).max(365).default(30),
  /** Hops along declared inputs/outputs around `productId`. */
  depth: z.coerce.number().int().min(1).max(6).default(2),
});

const LIVE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"] as const;
const GRANTED = ["APPROVED", "ACTIVE"] as const;

export type LineageFlag = "unused-grant" | "no-subscription" | "input-not-granted" | "input-not-observed" | "unknown-grant";

export interface LineageNode {
  id: string;
  /** principal: a Kafka principal with an ACL on a product topic that no catalog grant explains. */
  kind: "product" | "account" | "group" | "principal";
  label: string;
  domain: { slug: string; name: string } | null;
  productId?: string;
  topic?: string;
  status?: string;
  accountId?: string;
}

export interface LineageEdge {
  id: string;
  /** acl: an ACL binding on the topic the catalog does not know (queries/unknown-grants.ts). */
  kind: "subscription" | "observed" | "input" | "acl";
  source: string;
  target: string;
  granted: boolean;
  observed: boolean;
  /** Newest observed activity (ISO), null when never seen active. */
  lastActiveAt: Date | null;
  subscriptionId?: string;
  groups?: string[];
  /** For kind "acl": the binding's operations and why it is flagged. */
  acl?: { operations: string[]; why: string };
  flags: LineageFlag[];
}

export async function lineageGraph(db: Db, actor: Actor, rawInput: unknown) {
  const input = parseInput(lineageQueryInput, rawInput);
  const since = new Date(Date.now() - input.unusedDays * 24 * 3600_000);
  const seesAll = hasGlobal(actor, "product:review") || hasGlobal(actor, "platform:admin");
  const mine = new Set(actor.memberships.map((m) => m.domainId));

  const allInputs = await db.productInput.findMany({ select: { productId: true, inputProductId: true } });
  let productIds: Set<string> | null = null;
  if (input.productId) {
    const focus = await db.dataProduct.findUnique({ where: { id: input.productId }, select: { id: true, status: true, domainId: true } });
    if (!focus || (!(LIVE as readonly string[]).includes(focus.status) && !mine.has(focus.domainId) && !seesAll)) throw new NotFoundError("Data product", input.productId);
    // Walk declared inputs and outputs from the focus, `depth` hops each way.
    productIds = new Set([focus.id]);
    let frontier = [focus.id];
    for (let hop = 0; hop < input.depth && frontier.length > 0; hop++) {
      const next: string[] = [];
      for (const e of allInputs) {
        if (frontier.includes(e.productId) && !productIds.has(e.inputProductId)) next.push(e.inputProductId);
        if (frontier.includes(e.inputProductId) && !productIds.has(e.productId)) next.push(e.productId);
      }
      for (const id of next) productIds.add(id);
      frontier = next;
    }
  }
  const products = await db.dataProduct.findMany({
    where: { ...(productIds ? { id: { in: [...productIds] } } : {}), OR: [{ status: { in: [...LIVE] } }, ...(productIds ? [{ id: input.productId }] : [])] },
    select: { id: true, name: true, topicName: true, status: true, domainId: true, domain: { select: { slug: true, name: true } } },
  });
  const productById = new Map(products.map((p) => [p.id, p]));
  const topics = products.map((p) => p.topicName);
  const [subscriptions, usages] = await Promise.all([
    db.subscription.findMany({
      where: { productId: { in: products.map((p) => p.id) }, status: { in: [...GRANTED] } },
      select: { id: true, productId: true, status: true, consumingDomainId: true, serviceAccount: { select: { id: true, name: true, domainId: true, domain: { select: { slug: true, name: true } } } } },
    }),
    db.groupTopicUsage.findMany({ where: { topic: { in: topics } } }),
  ]);
  const accountIds = [...new Set(usages.map((u) => u.serviceAccountId).filter((x): x is string => x !== null))];
  const usageAccounts = await db.serviceAccount.findMany({ where: { id: { in: accountIds } }, select: { id: true, name: true, domainId: true, domain: { select: { slug: true, name: true } } } });

  const nodes = new Map<string, LineageNode>();
  const edges: LineageEdge[] = [];
  const productNode = (p: (typeof products)[number]) => `product:${p.id}`;
  for (const p of products) nodes.set(productNode(p), { id: productNode(p), kind: "product", label: p.name, domain: p.domain, productId: p.id, topic: p.topicName, status: p.status });
  const addAccount = (a: { id: string; name: string; domain: { slug: string; name: string } }) => {
    const id = `account:${a.id}`;
    if (!nodes.has(id)) nodes.set(id, { id, kind: "account", label: a.name, domain: a.domain, accountId: a.id });
    return id;
  };
  const active = (u: { lastActiveAt: Date | null; members: number }) => u.members > 0 || (u.lastActiveAt !== null && u.lastActiveAt >= since);
  const newest = (xs: { lastActiveAt: Date | null }[]) => xs.reduce<Date | null>((m, u) => (u.lastActiveAt && (!m || u.lastActiveAt > m) ? u.lastActiveAt : m), null);

  const covered = new Set<string>(); // `${accountId}\0${topic}` with a grant
  for (const s of subscriptions) {
    const product = productById.get(s.productId);
    if (!product) continue;
    covered.add(`${s.serviceAccount.id}\u0000${product.topicName}`);
    const used = usages.filter((u) => u.serviceAccountId === s.serviceAccount.id && u.topic === product.topicName);
    const observed = used.some(active);
    edges.push({
      id: `sub:${s.id}`,
      kind: "subscription",
      source: productNode(product),
      target: addAccount(s.serviceAccount),
      granted: true,
      observed,
      lastActiveAt: newest(used),
      subscriptionId: s.id,
      groups: used.map((u) => u.groupId),
      flags: observed ? [] : ["unused-grant"],
    });
  }
  // Consumers seen on a product topic without a grant: outside the catalog (a super user, an ACL made by hand) or a revoked subscription still committing.
  const productOfTopic = new Map(products.map((p) => [p.topicName, p]));
  const strays = new Map<string, { product: (typeof products)[number]; target: string; list: typeof usages }>();
  for (const u of usages) {
    if (!active(u)) continue;
    const product = productOfTopic.get(u.topic);
    if (!product || (u.serviceAccountId && covered.has(`${u.serviceAccountId}\u0000${u.topic}`))) continue;
    const account = u.serviceAccountId ? usageAccounts.find((a) => a.id === u.serviceAccountId) : undefined;
    let target: string;
    if (account) target = addAccount(account);
    else {
      target = `group:${u.groupId}`;
      if (!nodes.has(target)) nodes.set(target, { id: target, kind: "group", label: u.groupId, domain: null });
    }
    const key = `${product.id}\u0000${target}`;
    const entry = strays.get(key) ?? { product, target, list: [] };
    entry.list.push(u);
    strays.set(key, entry);
  }
  for (const [key, s] of strays) {
    edges.push({ id: `obs:${key}`, kind: "observed", source: productNode(s.product), target: s.target, granted: false, observed: true, lastActiveAt: newest(s.list), groups: s.list.map((u) => u.groupId), flags: ["no-subscription"] });
  }
  // Declared inputs: granted when the derived product's domain holds a grant on the input; observed when one of its accounts reads it.
  for (const e of allInputs) {
    const derived = productById.get(e.productId);
    const source = productById.get(e.inputProductId);
    if (!derived || !source) continue;
    const grants = subscriptions.filter((s) => s.productId === source.id && s.serviceAccount.domainId === derived.domainId);
    const reads = usages.filter((u) => u.topic === source.topicName && u.serviceAccountId && usageAccounts.some((a) => a.id === u.serviceAccountId && a.domainId === derived.domainId) && active(u));
    const flags: LineageFlag[] = [];
    if (grants.length === 0) flags.push("input-not-granted");
    else if (reads.length === 0) flags.push("input-not-observed");
    edges.push({ id: `input:${e.inputProductId}:${e.productId}`, kind: "input", source: productNode(source), target: productNode(derived), granted: grants.length > 0, observed: reads.length > 0, lastActiveAt: newest(reads), flags });
  }

  // ACLs on product topics that no subscription or producer grant explains: never invisible.
  const unknown = await unknownGrants(db, products.map((p) => p.id));
  for (const [productId, grants] of unknown) {
    const product = productById.get(productId);
    if (!product) continue;
    const byPrincipal = new Map<string, typeof grants>();
    for (const g of grants) byPrincipal.set(g.principal, [...(byPrincipal.get(g.principal) ?? []), g]);
    for (const [principal, list] of byPrincipal) {
      const target = `principal:${principal}`;
      if (!nodes.has(target)) nodes.set(target, { id: target, kind: "principal", label: principal, domain: null });
      edges.push({
        id: `acl:${product.id}:${principal}`,
        kind: "acl",
        source: productNode(product),
        target,
        granted: true,
        observed: false,
        lastActiveAt: null,
        acl: { operations: [...new Set(list.map((g) => `${g.permission} ${g.operation}`))], why: list[0]?.why ?? "" },
        flags: ["unknown-grant"],
      });
    }
  }

  // Readers outside governance see the parts of the graph that touch their domains (and the public product-to-product edges).
  const visibleEdges = seesAll
    ? edges
    : edges.filter((e) => {
        if (e.kind === "input") return true;
        // An unknown ACL on a product's topic: its owners see it (the principal belongs to no domain).
        if (e.kind === "acl") return mine.has(productById.get(nodes.get(e.source)?.productId ?? "")?.domainId ?? "");
        const product = nodes.get(e.source);
        const target = nodes.get(e.target);
        const productDomain = product?.productId ? productById.get(product.productId)?.domainId : undefined;
        const accountDomain = target?.accountId ? [...subscriptions.map((s) => s.serviceAccount), ...usageAccounts].find((a) => a.id === target.accountId)?.domainId : undefined;
        return (productDomain !== undefined && mine.has(productDomain)) || (accountDomain !== undefined && mine.has(accountDomain));
      });
  const used = new Set(visibleEdges.flatMap((e) => [e.source, e.target]));
  const visibleNodes = [...nodes.values()].filter((n) => n.kind === "product" || used.has(n.id));
  const lastScan = await db.clusterTopic.aggregate({ _max: { observedAt: true } });
  return {
    focus: input.productId ?? null,
    unusedDays: input.unusedDays,
    observedAt: lastScan._max.observedAt,
    nodes: visibleNodes,
    edges: visibleEdges,
  };
}
