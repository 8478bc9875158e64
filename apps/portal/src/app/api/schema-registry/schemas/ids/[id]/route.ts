import { schemaById } from "@kappa/catalog";
import { db } from "@/server/db";
import { parseSchemaId, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ id: string }> };

/** GET /schemas/ids/{id}: the schema behind the 4 bytes after a record's magic byte. */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await schemaById(db(), caller, parseSchemaId((await params).id)));
  } catch (error) {
    return registryError(error);
  }
}
