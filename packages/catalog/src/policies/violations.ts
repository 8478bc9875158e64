import type { Db, Tx } from "../db.ts";
import type { PolicyDocument } from "./document.ts";
import { productFacts } from "./enforce.ts";
import { evaluatePolicy, type RuleResult } from "./evaluate.ts";

export interface ProductViolation {
  productId: string;
  name: string;
  topicName: string;
  status: string;
  domain: { slug: string; name: string };
  failed: RuleResult[];
  warned: RuleResult[];
}

/**
 * Re-evaluates every product that is not retired against the registration
 * rules of `document` (the rules a product must meet to exist) and returns the
 * ones that fail or warn. Read-only: a policy change never edits a product.
 */
export async function findViolations(db: Db | Tx, document: PolicyDocument): Promise<ProductViolation[]> {
  const products = await db.dataProduct.findMany({
    where: { status: { notIn: ["RETIRED"] } },
    include: { domain: { select: { slug: true, name: true } }, schemaVersions: { orderBy: { version: "desc" }, take: 1 } },
    orderBy: { topicName: "asc" },
  });
  return products.flatMap((p) => {
    const { results } = evaluatePolicy(document, "product.register", { product: productFacts(p, p.schemaVersions[0] ?? null) });
    const failed = results.filter((r) => r.outcome === "fail");
    const warned = results.filter((r) => r.outcome === "warn");
    if (failed.length === 0 && warned.length === 0) return [];
    return [{ productId: p.id, name: p.name, topicName: p.topicName, status: p.status, domain: p.domain, failed, warned }];
  });
}
