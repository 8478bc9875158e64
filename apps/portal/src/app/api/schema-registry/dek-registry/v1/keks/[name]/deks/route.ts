import { createDek } from "@kappa/catalog";
import { db } from "@/server/db";
import { readRegistryBody, registryCaller, registryError, registryJson, registrySecretsKey } from "@/server/schema-registry";

type Context = { params: Promise<{ name: string }> };

/** POST /dek-registry/v1/keks/{name}/deks: the older form of DEK creation (subject in the body), as the client falls back to it. */
export async function POST(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await createDek(db(), caller, (await params).name, null, await readRegistryBody(request), registrySecretsKey()));
  } catch (error) {
    return registryError(error);
  }
}
