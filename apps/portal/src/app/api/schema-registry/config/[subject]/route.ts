import { subjectConfig, updateSubjectConfig } from "@kappa/catalog";
import { db } from "@/server/db";
import { portalUrl, readRegistryBody, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string }> };

/** GET /config/{subject}: the product's compatibility mode. */
export async function GET(request: Request, { params }: Context) {
  try {
    return registryJson(await subjectConfig(db(), await registryCaller(request), (await params).subject));
  } catch (error) {
    return registryError(error);
  }
}

/** PUT /config/{subject}: agrees with the mode in force; a change goes through the portal's review. */
export async function PUT(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await updateSubjectConfig(db(), caller, (await params).subject, await readRegistryBody(request), portalUrl()));
  } catch (error) {
    return registryError(error);
  }
}
