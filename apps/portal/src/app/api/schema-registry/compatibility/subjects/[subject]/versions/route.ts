import { testCompatibility } from "@kappa/catalog";
import { db } from "@/server/db";
import { readRegistryBody, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string }> };

/** POST /compatibility/subjects/{subject}/versions: against every version the subject's mode names (the portal's check). */
export async function POST(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await testCompatibility(db(), caller, (await params).subject, null, await readRegistryBody(request)));
  } catch (error) {
    return registryError(error);
  }
}
