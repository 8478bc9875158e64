import { subjectVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string; version: string }> };

/** GET /subjects/{subject}/versions/{version|latest}: subject, version, id and schema. */
export async function GET(request: Request, { params }: Context) {
  try {
    const { subject, version } = await params;
    return registryJson(await subjectVersion(db(), await registryCaller(request), subject, version));
  } catch (error) {
    return registryError(error);
  }
}
