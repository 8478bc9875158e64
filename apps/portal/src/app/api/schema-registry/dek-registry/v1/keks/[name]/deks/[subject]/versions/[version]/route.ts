import { getDek } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryJson, registrySecretsKey } from "@/server/schema-registry";

type Context = { params: Promise<{ name: string; subject: string; version: string }> };

/**
 * GET /dek-registry/v1/keks/{name}/deks/{subject}/versions/{version}?algorithm=&deleted=:
 * the DEK, with its plaintext keyMaterial only for the producer account and
 * subscriptions approved for PII (audited); others get it without.
 */
export async function GET(request: Request, { params }: Context) {
  try {
    const caller = await registryCaller(request);
    const { name, subject, version } = await params;
    const algorithm = new URL(request.url).searchParams.get("algorithm");
    return registryJson(await getDek(db(), caller, name, subject, version, algorithm === "" ? null : algorithm, registrySecretsKey()));
  } catch (error) {
    return registryError(error);
  }
}
