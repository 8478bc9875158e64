import { z } from "zod";
import { inTransaction, parseInput, type ActingUser } from "../action.ts";
import { recordAudit } from "../audit.ts";
import type { Db } from "../db.ts";
import { ValidationError } from "../errors.ts";
import { registerProductInput } from "../validation.ts";
import { registerProductInTx } from "./register-product.ts";
import { validateDerivedStatement, type FlinkSettings } from "./validate-derived-statement.ts";

const CLASSIFICATION_ORDER = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"] as const;

const derivedPart = z.object({ statement: z.string() }, { error: "derived must be an object with a statement." });

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * `POST /api/v1/products` with `"derived": {"statement": "…"}`: a product
 * computed in the stream by Flink. The statement is planned first (as
 * `POST /api/v1/derived/validate`: the domain's owners only, each input
 * subscribed, Flink's planner); its output schema becomes the product's schema
 * version 1 (JSON Schema; a schema in the request is refused — the planner's
 * is the schema), its classification must be at least the highest among its
 * inputs, and the inputs become its declared lineage. The product then goes
 * through review like any other; the worker deploys the job once it is approved.
 */
export async function registerDerivedProduct(db: Db, acting: ActingUser, rawInput: unknown, flink: FlinkSettings | null) {
  if (!isObject(rawInput)) throw new ValidationError("The request body must be a JSON object.");
  const { derived: rawDerived, ...rest } = rawInput;
  const derived = parseInput(derivedPart, rawDerived);
  if (rest.schema !== undefined) throw new ValidationError("A derived product's schema is the one Flink derives from its statement; leave schema out.", { schema: ["Leave schema out: Flink derives it from the statement."] });
  // The product's own fields are checked before Flink is asked (a placeholder schema stands in for the derived one).
  parseInput(registerProductInput, { ...rest, schema: { format: "JSON_SCHEMA", definition: JSON.stringify({ type: "object" }) } });
  const validation = await validateDerivedStatement(db, acting, { domainId: rest.domainId, statement: derived.statement }, flink);
  const input = parseInput(registerProductInput, { ...rest, schema: { format: "JSON_SCHEMA", definition: JSON.stringify(validation.outputSchema) } });
  if (CLASSIFICATION_ORDER.indexOf(input.classification) < CLASSIFICATION_ORDER.indexOf(validation.minimumClassification)) {
    const message = `A derived product is classified at least as its most sensitive input: ${validation.minimumClassification} or higher.`;
    throw new ValidationError(message, { classification: [message] });
  }
  return inTransaction(db, acting, async (tx, actor) => {
    const product = await registerProductInTx(tx, actor, input);
    await tx.derivedProduct.create({ data: { productId: product.id, statement: validation.statement } });
    await tx.productInput.createMany({ data: validation.inputs.map((i) => ({ productId: product.id, inputProductId: i.productId })) });
    await recordAudit(tx, actor, "product.derivedDeclared", "DataProduct", product.id, { statement: validation.statement, inputs: validation.inputs.map((i) => i.topicName) });
    return { ...product, derived: { statement: validation.statement, inputs: validation.inputs } };
  });
}
