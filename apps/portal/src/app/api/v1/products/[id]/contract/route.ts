import { stringify } from "yaml";
import { productContract, ValidationError } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "@/server/db";
import { errorResponse, json } from "@/server/http";
import { visibleActor } from "@/server/visible";

/** YAML when the client asks for it (Accept: application/yaml, text/yaml, application/x-yaml); JSON otherwise. */
function wantsYaml(accept: string | null): boolean {
  return /\b(application|text)\/(x-)?yaml\b/i.test(accept ?? "");
}

/** The product version's ODCS v3 contract; `?schemaVersion=N` for an earlier schema version. */
export async function GET(request: Request, { params }: { params: Promise<{ id: string }> }) {
  try {
    const actor = await visibleActor("product", (await params).id);
    const raw = new URL(request.url).searchParams.get("schemaVersion");
    const schemaVersion = raw === null ? undefined : Number(raw);
    if (schemaVersion !== undefined && (!Number.isInteger(schemaVersion) || schemaVersion < 1)) throw new ValidationError("schemaVersion is a positive whole number.");
    const contract = await productContract(db(), actor, (await params).id, { bootstrap: env().KAFKA_BOOTSTRAP_DISPLAY, schemaVersion });
    const url = new URL(request.url);
    // `?format=yaml` lets a plain link (the product page's download) ask for YAML.
    const yaml = wantsYaml(request.headers.get("accept")) || url.searchParams.get("format") === "yaml";
    const response = yaml
      ? new Response(stringify(contract, { lineWidth: 0 }), { headers: { "content-type": "application/yaml; charset=utf-8" } })
      : json(contract);
    if (url.searchParams.has("download")) response.headers.set("content-disposition", `attachment; filename="${contract.id}.odcs.${yaml ? "yaml" : "json"}"`);
    response.headers.set("vary", "accept");
    return response;
  } catch (error) {
    return errorResponse(error);
  }
}
