import { actingUser, parseInput, requestSchemaInference, schemaInferenceInput, topicSchemaInference } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { errorResponse, json, queryObject, readJson } from "@/server/http";

/** The latest schema inference of an unmanaged topic: `?topic=<name>`; `null` before the first request. */
export async function GET(request: Request) {
  try {
    const { topic } = parseInput(schemaInferenceInput, queryObject(request));
    return json(await topicSchemaInference(db(), await currentActor(), topic));
  } catch (error) {
    return errorResponse(error);
  }
}

/** `{ topic }`: the worker samples the topic's newest records and infers its schema (202; poll GET). */
export async function POST(request: Request) {
  try {
    return json(await requestSchemaInference(db(), actingUser(await currentActor()), await readJson(request)), 202);
  } catch (error) {
    return errorResponse(error);
  }
}
