import { actingUser, validateDerivedStatement } from "@kappa/catalog";
import { currentActor } from "@/server/actor";
import { db } from "@/server/db";
import { flinkSettings } from "@/server/flink";
import { errorResponse, json, readJson } from "@/server/http";

/**
 * Plans a derived product's Flink SQL statement for a domain: 200 with the
 * output schema Flink's planner derives, the inputs and Flink's plan; 403
 * naming an input the domain holds no approved subscription to; 422 with
 * Flink's own message, line and column. A read-only planning call to the SQL
 * Gateway (a throw-away session; nothing runs, nothing reaches Kafka), so the
 * portal makes it itself; deploying is the worker's.
 */
export async function POST(request: Request) {
  try {
    const actor = await currentActor();
    const { outputSchema, inputs, plan, minimumClassification } = await validateDerivedStatement(db(), actingUser(actor), await readJson(request), flinkSettings());
    return json({ outputSchema, inputs, plan, minimumClassification });
  } catch (error) {
    return errorResponse(error);
  }
}
