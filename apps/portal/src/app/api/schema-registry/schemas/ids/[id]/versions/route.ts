import { subjectVersionsOfSchema } from "@kappa/catalog";
import { db } from "@/server/db";
import { parseSchemaId, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ id: string }> };

/** GET /schemas/ids/{id}/versions: the subject-version pairs that use the schema. */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await subjectVersionsOfSchema(db(), caller, parseSchemaId((await params).id)));
  } catch (error) {
    return registryError(error);
  }
}
