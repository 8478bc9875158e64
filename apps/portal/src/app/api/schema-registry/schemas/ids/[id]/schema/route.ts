import { schemaById } from "@kappa/catalog";
import { db } from "@/server/db";
import { parseSchemaId, registryCaller, registryError, registryText } from "@/server/schema-registry";

type Context = { params: Promise<{ id: string }> };

/** GET /schemas/ids/{id}/schema: the schema text alone. */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryText((await schemaById(db(), caller, parseSchemaId((await params).id))).schema);
  } catch (error) {
    return registryError(error);
  }
}
