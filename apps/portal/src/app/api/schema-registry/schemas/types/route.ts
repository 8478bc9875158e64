import { registryCaller, registryError, registryJson } from "@/server/schema-registry";

/** GET /schemas/types: the formats products use (no Protobuf). */
export async function GET(request: Request) {
  try {
    await registryCaller(request);
    return registryJson(["AVRO", "JSON"]);
  } catch (error) {
    return registryError(error);
  }
}
