import type { SchemaFormat } from "@prisma/client";
import type { Db, Tx } from "../db.ts";
import { canonicalSchema, normalizedSchema, schemaFingerprint, schemaIdentity } from "../schema/canonical.ts";

/**
 * Global, stable schema ids, as Confluent Schema Registry hands them out: one
 * id per distinct schema (normalized text and format), whichever products use
 * it, never reused and never changed. A version gets its id when governance
 * approves it; an id the registry API serves is always an approved schema.
 */
export async function registrySchemaId(tx: Tx | Db, format: SchemaFormat, definition: string): Promise<number> {
  const identity = schemaIdentity(format, definition);
  // ON CONFLICT makes concurrent approvals of the same schema agree on one id.
  const rows = await tx.$queryRaw<{ id: number }[]>`
    INSERT INTO "RegistrySchema" ("format", "identity", "normalized", "canonicalForm", "fingerprint")
    VALUES (${format}::"SchemaFormat", ${identity}, ${normalizedSchema(definition)}, ${canonicalSchema(format, definition)}, ${schemaFingerprint(format, definition)})
    ON CONFLICT ("identity") DO UPDATE SET "identity" = EXCLUDED."identity"
    RETURNING "id"`;
  const id = rows[0]?.id;
  if (id === undefined) throw new Error("The registry returned no id.");
  return id;
}

/**
 * Gives every APPROVED version of the products that lacks an id its id (and
 * fingerprint). Approvals assign ids as they happen; this covers versions
 * approved before ids existed. Idempotent.
 */
export async function assignRegistryIds(tx: Tx | Db, where: { productId?: string } = {}): Promise<number> {
  const missing = await tx.schemaVersion.findMany({
    where: { status: "APPROVED", schemaId: null, ...(where.productId ? { productId: where.productId } : {}) },
    select: { id: true, format: true, definition: true },
  });
  for (const version of missing) {
    const schemaId = await registrySchemaId(tx, version.format, version.definition);
    await tx.schemaVersion.update({ where: { id: version.id }, data: { schemaId, fingerprint: schemaFingerprint(version.format, version.definition) } });
  }
  return missing.length;
}
