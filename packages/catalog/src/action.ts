import type { z } from "zod";
import { loadActor, type Actor } from "./actor.ts";
import type { Db, Tx } from "./db.ts";
import { ValidationError } from "./errors.ts";
import { normaliseRequestContext, type RequestContext } from "./request-context.ts";
import { PolicyViolationError, recordRefusal } from "./policies/enforce.ts";
import { restrictToScopes } from "./tokens/scopes.ts";
import { fieldErrors } from "./validation.ts";

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
      async (tx) => work(tx, await loadActingActor(tx, acting)),
      { isolationLevel: "ReadCommitted", timeout: 15_000 },
    );
  } catch (error) {
    // A policy refusal rolled the change back; its evaluation is still history.
    if (error instanceof PolicyViolationError) await recordRefusal(db, error);
    throw error;
  }
}

/** Parses input with a zod schema; refuses with every field's message. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ValidationError("Some fields need attention.", fieldErrors(result.error));
  }
  return result.data;
}
