import { productOfSubject, registerSchema } from "@kappa/catalog";
import { db } from "@/server/db";
import { portalUrl, readRegistryBody, registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string }> };

/** GET /subjects/{subject}/versions: the numbers of its approved versions. */
export async function GET(request: Request, { params }: Context) {
  try {
    const product = await productOfSubject(db(), await registryCaller(request), (await params).subject);
    return registryJson(product.schemaVersions.map((v) => v.version));
  } catch (error) {
    return registryError(error);
  }
}

/** POST /subjects/{subject}/versions: governed — the id of an approved identical schema, else refused (see the catalog's register.ts). */
export async function POST(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    return registryJson(await registerSchema(db(), caller, (await params).subject, await readRegistryBody(request), portalUrl()));
  } catch (error) {
    return registryError(error);
  }
}
