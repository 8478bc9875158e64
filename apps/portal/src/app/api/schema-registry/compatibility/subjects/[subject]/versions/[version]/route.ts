import { testCompatibility } from "@kappa/catalog";
import { db } from "@/server/db";
import { readRegistryBody, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string; version: string }> };

/** POST /compatibility/subjects/{subject}/versions/{version|latest}: { is_compatible, messages }, registering nothing. */
export async function POST(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    const { subject, version } = await params;
    return registryJson(await testCompatibility(db(), caller, subject, version, await readRegistryBody(request)));
  } catch (error) {
    return registryError(error);
  }
}
