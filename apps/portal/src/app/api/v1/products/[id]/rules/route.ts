import { actingUser, getProduct, setQualityRules } from "@kappa/catalog";
import { db } from "@/server/db";
import { errorResponse, json, readJson } from "@/server/http";
import { visibleActor } from "@/server/visible";

type Context = { params: Promise<{ id: string }> };

/** The product's data-quality rules in force (issue 29), its dead-letter topic and whether its PII fields are encrypted, for everyone who may read the product. */
export async function GET(_request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const { id } = await params;
    const product = await getProduct(db(), actor, id);
    return json({ productId: product.id, rules: product.qualityRules, dlqTopic: product.dlqTopic, encryptPii: product.encryptPii });
  } catch (error) {
    return errorResponse(error);
  }
}

/**
 * Body: `{ rules: [...], reason, encryptPii? }` — the whole list, in order, and
 * optionally the opt-in to field-level encryption of the PII fields. A draft takes
 * it at once (200); a live product's change waits for governance (202 with
 * the change request's id).
 */
export async function PUT(request: Request, { params }: Context) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const { id } = await params;
    const result = await setQualityRules(db(), actingUser(actor), id, await readJson(request));
    return json(result, result.applied ? 200 : 202);
  } catch (error) {
    return errorResponse(error);
  }
}
