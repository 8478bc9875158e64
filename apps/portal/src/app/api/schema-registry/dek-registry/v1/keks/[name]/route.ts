import { getKek } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryJson, registrySecretsKey } from "@/server/schema-registry";

type Context = { params: Promise<{ name: string }> };

/** GET /dek-registry/v1/keks/{name}?deleted=: the domain's shared KEK (never its secret), for callers who read a product of the domain. */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await getKek(db(), caller, (await params).name, registrySecretsKey()));
  } catch (error) {
    return registryError(error);
  }
}
