import { subjectVersion } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryText } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string; version: string }> };

/** GET /subjects/{subject}/versions/{version}/schema: the schema text alone. */
export async function GET(request: Request, { params }: Context) {
  try {
    const { subject, version } = await params;
    return registryText((await subjectVersion(db(), await registryCaller(request), subject, version)).schema);
  } catch (error) {
    return registryError(error);
  }
}
