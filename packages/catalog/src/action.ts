import type { z } from "zod";
import { loadActor, type Actor } from "./actor.ts";
import type { Db, Tx } from "./db.ts";
import { ValidationError } from "./errors.ts";
import { PolicyViolationError, recordRefusal } from "./policies/enforce.ts";
import { normaliseRequestContext, type RequestContext } from "./request-context.ts";
import { restrictToScopes } from "./tokens/scopes.ts";
import { fieldErrors, textProblem } from "./validation.ts";

/**
 * Who is acting: the signed-in user's id (the session holds nothing else we
 * trust), for API-token requests the token whose scopes narrow the roles, and,
 * from the portal, where the request came from (for the audit log).
 */
export interface ActingUser {
  userId: string;
  token?: { id: string; name: string; scopes: string[] };
  request?: Partial<RequestContext>;
}

/** The ActingUser of an actor the portal authenticated (session or token), with its request context. */
export function actingUser(actor: Pick<Actor, "id" | "token" | "request">): ActingUser {
  return { userId: actor.id, ...(actor.token ? { token: actor.token } : {}), ...(actor.request ? { request: actor.request } : {}) };
}

/** The acting user's actor, narrowed by the API token's scopes when there is one, carrying the request context. */
export async function loadActingActor(db: Db | Tx, acting: ActingUser): Promise<Actor> {
  const loaded = await loadActor(db, acting.userId);
  const actor = acting.token ? restrictToScopes(loaded, acting.token) : loaded;
  const request = normaliseRequestContext(acting.request);
  return request ? { ...actor, request } : actor;
}

/**
 * Runs one catalog action in one transaction: the actor's roles are read inside
 * it, so the permission check, the change, its audit event and its provisioning
 * tasks commit together or not at all.
 */
export async function inTransaction<T>(db: Db, acting: ActingUser, work: (tx: Tx, actor: Actor) => Promise<T>): Promise<T> {
  try {
    return await db.$transaction(
      async (tx) => {
        const actor = await loadActingActor(tx, acting);
        // The request's id for every provisioning task this transaction queues (the column's default reads it); transaction-local.
        if (actor.request?.requestId) await tx.$queryRaw`SELECT set_config('kappa.request_id', ${actor.request.requestId}, true)`;
        return work(tx, actor);
      },
      { isolationLevel: "ReadCommitted", timeout: 15_000 },
    );
  } catch (error) {
    // A policy refusal rolled the change back; its evaluation is still history.
    if (error instanceof PolicyViolationError) await recordRefusal(db, error);
    throw error;
  }
}

/** Deeper than any input the catalog takes: a bound on what a hostile client makes us walk. */
const MAX_INPUT_DEPTH = 32;

/**
 * Every string anywhere in the raw input is NUL-free (PostgreSQL text cannot
 * hold NUL: a 500 otherwise), well-formed Unicode and free of control
 * characters other than tabs and line breaks, and the input is not absurdly deep — checked
 * here, before any schema, so every action's input gets it, including fields
 * a schema forgot to bound. Field-level schemas add their own length limits.
 */
export function rawInputProblems(input: unknown): Record<string, string[]> {
  const problems: Record<string, string[]> = {};
  const walk = (value: unknown, path: string[], depth: number): void => {
    if (Object.keys(problems).length >= 20) return;
    const key = path.length > 0 ? path.join(".") : "_";
    if (typeof value === "string") {
      // Tabs and line breaks may be in any text here; one-line fields refuse them in their own schema.
      const problem = textProblem(key, value, true);
      if (problem) problems[key] = [problem];
      return;
    }
    if (typeof value !== "object" || value === null) return;
    if (depth >= MAX_INPUT_DEPTH) {
      problems[key] = [`${key} is nested more than ${MAX_INPUT_DEPTH} levels deep.`];
      return;
    }
    if (Array.isArray(value)) value.forEach((v, i) => walk(v, [...path, String(i)], depth + 1));
    else
      for (const [k, v] of Object.entries(value)) {
        if (textProblem("A field name", k, false)) problems[key] = [`A field name in ${key} contains NUL, a control character or a lone surrogate.`];
        else walk(v, [...path, k], depth + 1);
      }
  };
  walk(input, [], 0);
  return problems;
}

/** Parses input with a zod schema; refuses with every field's message. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const raw = rawInputProblems(input);
  if (Object.keys(raw).length > 0) throw new ValidationError("Some fields need attention.", raw);
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ValidationError("Some fields need attention.", fieldErrors(result.error));
  }
  return result.data;
}
