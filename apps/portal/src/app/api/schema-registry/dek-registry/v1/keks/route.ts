import { refuseKekWrite } from "@kappa/catalog";
import { registryCaller, registryError } from "@/server/schema-registry";

/**
 * POST /dek-registry/v1/keks: what `@confluentinc/schemaregistry`'s
 * DekRegistryClient.registerKek calls. KEKs are the platform's (one per
 * domain, created when first needed): a client's registration is refused
 * (40301) once the caller is known.
 */
export async function POST(request: Request) {
  try {
    await registryCaller(request);
    return refuseKekWrite();
  } catch (error) {
    return registryError(error);
  }
}
