import type { Actor } from "../actor.ts";
import type { OdcsContract } from "../contracts/odcs-types.ts";
import { productToContract } from "../contracts/to-contract.ts";
import type { Db } from "../db.ts";
import { NotFoundError } from "../errors.ts";
import { getProduct } from "./get-product.ts";

/**
 * The ODCS contract of a product version: its newest schema version, or the
 * one asked for. Anyone who may read the product may read its contract.
 */
export async function productContract(db: Db, actor: Actor, productId: string, options: { bootstrap: string; schemaVersion?: number }): Promise<OdcsContract> {
  const product = await getProduct(db, actor, productId);
  const schema = options.schemaVersion === undefined ? product.schemaVersions[0] : product.schemaVersions.find((v) => v.version === options.schemaVersion);
  if (!schema && options.schemaVersion !== undefined) throw new NotFoundError("Schema version", `${options.schemaVersion} of ${product.topicName}`);
  return productToContract(
    {
      ...product,
      retentionMs: Number(product.retentionMs),
      localRetentionMs: Number(product.localRetentionMs),
      availabilityPct: product.availabilityPct.toNumber(),
      compatibilityMode: product.compatibilityMode,
      qualityRules: product.qualityRules,
      encryptPii: product.encryptPii,
      derived: product.derived ? { statement: product.derived.statement } : null,
      schema: schema ? { version: schema.version, format: schema.format, definition: schema.definition } : null,
    },
    { bootstrap: options.bootstrap },
  );
}
