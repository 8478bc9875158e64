import { CatalogError } from "./errors.ts";

/*
 * Four eyes: whoever decides on a record (approves or rejects a product, a
 * schema version, a subscription) must not be one of the people who made it
 * what it is now — its creator, its submitter or requester, or anyone who
 * changed it since the last decision. Records keep those people in
 * `createdById` / `submittedById` / `requestedById` and an `editorIds` list
 * that grows with every change (`withEditor`) and is emptied when a decision
 * is taken.
 */

export interface FourEyesSubject {
  createdById?: string | null;
  submittedById?: string | null;
  requestedById?: string | null;
  /** Users who changed the record since the last decision. */
  editorIds?: readonly string[] | null;
}

export type FourEyesRole = "creator" | "submitter" | "requester" | "editor";

export class FourEyesError extends CatalogError {
  constructor(
    message: string,
    readonly role: FourEyesRole,
  ) {
    super("FOUR_EYES", 403, message);
  }
}

/** The part the actor played in the record, if any (creator first: the strongest tie). */
export function fourEyesConflict(actorId: string, subject: FourEyesSubject): FourEyesRole | null {
  if (subject.createdById === actorId) return "creator";
  if (subject.submittedById === actorId) return "submitter";
  if (subject.requestedById === actorId) return "requester";
  if (subject.editorIds?.includes(actorId)) return "editor";
  return null;
}

const PART: Record<FourEyesRole, string> = {
  creator: "created",
  submitter: "submitted",
  requester: "requested",
  editor: "changed since the last decision",
};

/**
 * Throws a 403 FOUR_EYES when the actor may not decide on the record.
 * `what` names the record for the message, e.g. "this product".
 */
export function assertFourEyes(actor: { id: string }, subject: FourEyesSubject, what: string): void {
  const role = fourEyesConflict(actor.id, subject);
  if (role) throw new FourEyesError(`Four-eyes rule: you cannot decide on ${what}, which you ${PART[role]}; another reviewer must.`, role);
}

/** The editor list with the actor added once (for the update that records a change). */
export function withEditor(editorIds: readonly string[] | null | undefined, userId: string): string[] {
  const list = editorIds ?? [];
  return list.includes(userId) ? [...list] : [...list, userId];
}
