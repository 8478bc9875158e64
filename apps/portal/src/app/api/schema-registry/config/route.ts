import { globalConfig } from "@kappa/catalog";
import { registryCaller, registryError, registryJson } from "@/server/schema-registry";

/** GET /config: the default mode of new products (each product has its own). */
export async function GET(request: Request) {
  try {
    await registryCaller(request);
    return registryJson(globalConfig());
  } catch (error) {
    return registryError(error);
  }
}
