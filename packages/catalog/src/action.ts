import type { z } from "zod";
import { loadActor, type Actor } from "./actor.ts";
import type { Db, Tx } from "./db.ts";
import { ValidationError } from "./errors.ts";
import { PolicyViolationError, recordRefusal } from "./policies/enforce.ts";
import { restrictToScopes } from "./tokens/scopes.ts";
import { fieldErrors } from "./validation.ts";

/**
 * Who is acting: the signed-in user's id (the session holds nothing else we
 * trust) and, for API-token requests, the token whose scopes narrow the roles.
 */
export interface ActingUser {
  userId: string;
  token?: { id: string; name: string; scopes: string[] };
}

/** The ActingUser of an actor the portal authenticated (session or token). */
export function actingUser(actor: Pick<Actor, "id" | "token">): ActingUser {
  return actor.token ? { userId: actor.id, token: actor.token } : { userId: actor.id };
}

/** The acting user's actor, narrowed by the API token's scopes when there is one. */
export async function loadActingActor(db: Db | Tx, acting: ActingUser): Promise<Actor> {
  const actor = await loadActor(db, acting.userId);
  return acting.token ? restrictToScopes(actor, acting.token) : actor;
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
