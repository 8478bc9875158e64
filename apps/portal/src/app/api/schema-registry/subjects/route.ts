import { listSubjects } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryJson } from "@/server/schema-registry";

/** GET /subjects: `<topic>-value` for every product the caller may read (TopicNameStrategy). */
export async function GET(request: Request) {
  try {
    return registryJson(await listSubjects(db(), await registryCaller(request)));
  } catch (error) {
    return registryError(error);
  }
}
