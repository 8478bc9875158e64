import { lookupSchema } from "@kappa/catalog";
import { db } from "@/server/db";
import { readRegistryBody, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string }> };

/** POST /subjects/{subject}: is this schema a (approved) version of the subject? */
export async function POST(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await lookupSchema(db(), caller, (await params).subject, await readRegistryBody(request)));
  } catch (error) {
    return registryError(error);
  }
}
