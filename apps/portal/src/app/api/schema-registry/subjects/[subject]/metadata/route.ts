import { latestWithMetadata } from "@kappa/catalog";
import { db } from "@/server/db";
import { registryCaller, registryError, registryJson } from "@/server/schema-registry";

type Context = { params: Promise<{ subject: string }> };

/** GET /subjects/{subject}/metadata?key=…&value=…: the newest version with those metadata properties (a deserializer's `useLatestWithMetadata`). */
export async function GET(request: Request, { params }: Context) {
  try {
    const query = new URL(request.url).searchParams;
    return registryJson(await latestWithMetadata(db(), await registryCaller(request), (await params).subject, query.getAll("key"), query.getAll("value")));
  } catch (error) {
    return registryError(error);
  }
}
