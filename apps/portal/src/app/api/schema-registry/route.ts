import { registryJson } from "@/server/schema-registry";

/** Confluent's root answers an empty object; clients use it as a liveness probe. */
export function GET() {
  return registryJson({});
}
