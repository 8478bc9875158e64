import { schemaById } from "@kappa/catalog";
import { db } from "@/server/db";
import { parseSchemaId, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ id: string }> };

/** GET /schemas/ids/{id}[?subject=]: the schema behind the 4 bytes after a record's magic byte; with a subject, its metadata and ruleSet too. */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    const subject = new URL(request.url).searchParams.get("subject");
    return registryJson(await schemaById(db(), caller, parseSchemaId((await params).id), subject === null || subject === "" ? null : subject));
  } catch (error) {
    return registryError(error);
  }
}
