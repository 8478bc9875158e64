import type { z } from "zod";
import { loadActor, type Actor } from "./actor.ts";
import type { Db, Tx } from "./db.ts";
import { ValidationError } from "./errors.ts";
import { normaliseRequestContext, type RequestContext } from "./request-context.ts";
import { fieldErrors } from "./validation.ts";

/**
 * Who is acting: the signed-in user's id (the session holds nothing else we
 * trust) and, from the portal, where the request came from (for the audit log).
 */
export interface ActingUser {
  userId: string;
  request?: Partial<RequestContext>;
}

/**
 * Runs one catalog action in one transaction: the actor's roles are read inside
 * it, so the permission check, the change, its audit event and its provisioning
 * tasks commit together or not at all.
 */
export async function inTransaction<T>(db: Db, acting: ActingUser, work: (tx: Tx, actor: Actor) => Promise<T>): Promise<T> {
  const request = normaliseRequestContext(acting.request);
  return db.$transaction(async (tx) => work(tx, { ...(await loadActor(tx, acting.userId)), ...(request ? { request } : {}) }), {
    isolationLevel: "ReadCommitted",
    timeout: 15_000,
  });
}

/** Parses input with a zod schema; refuses with every field's message. */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input);
  if (!result.success) {
    throw new ValidationError("Some fields need attention.", fieldErrors(result.error));
  }
  return result.data;
}
