import { listClusterTopics } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject } from "@/server/http";

/**
 * Every topic on the cluster as the worker last saw it (platform admins and
 * domain owners): `managed: true` with `productId` when a product owns it;
 * unmanaged ones with partitions, configs, size, offsets, groups and ACLs.
 * `?managed=true|false&q=<name contains>&page&pageSize`.
 */
export async function GET(request: Request) {
  try {
    return json(await listClusterTopics(db(), await currentActor(), queryObject(request)));
  } catch (error) {
    return errorResponse(error);
  }
}
