// Users created from the command line at start-up (`--sasl-admin`, `--sasl-user`).
// Passwords pass through here into PBKDF2 and are dropped; they are never logged
// or written anywhere.
import type { ScramCredentialStore, CredentialChange } from "../scram/credential-store.ts";
import { MIN_ITERATIONS, SCRAM_MECHANISMS, SCRAM_SHA_512, credentialFromPassword, passwordMatches, type ScramCredential } from "../scram/scram.ts";

export interface BootstrapUser {
  name: string;
  password: string;
}

export class BootstrapUserError extends Error {
  override name = "BootstrapUserError";
}

/** `<user>:<password>`, split at the first colon (passwords may contain colons; Kafka user names may not be empty). */
export function parseUserPassword(flag: string, value: string): BootstrapUser {
  const colon = value.indexOf(":");
  if (colon <= 0 || colon === value.length - 1) {
    // The value may be a password typed in the wrong place: do not echo it.
    throw new BootstrapUserError(`${flag} expects <user>:<password> with a non-empty user and password`);
  }
  return { name: value.slice(0, colon), password: value.slice(colon + 1) };
}

/**
 * Creates or updates SCRAM-SHA-256 and SCRAM-SHA-512 credentials (4096 iterations,
 * Kafka's minimum and kafka-storage's default) for each user. A credential that
 * already matches the password is kept, so restarting does not rewrite salts.
 * Returns the users whose credentials changed.
 */
export async function ensureBootstrapUsers(store: ScramCredentialStore, users: readonly BootstrapUser[], iterations = MIN_ITERATIONS): Promise<string[]> {
  const changes: CredentialChange[] = [];
  const changed = new Set<string>();
  for (const u of users) {
    for (const mech of SCRAM_MECHANISMS) {
      const existing = store.get(u.name, mech);
      if (existing && existing.iterations === iterations && (await passwordMatches(mech, existing, u.password))) continue;
      changes.push({ kind: "upsert", user: u.name, mechanism: mech, credential: await credentialFromPassword(mech, u.password, iterations) });
      changed.add(u.name);
    }
  }
  if (changes.length > 0) await store.apply(changes);
  return [...changed];
}

/**
 * PLAIN's static users, after ensureBootstrapUsers: each start-up user with its
 * SCRAM-SHA-512 credential as of start-up (it matches the start-up password).
 * Kafka's PLAIN checks the passwords of its JAAS configuration, fixed at
 * start; a later AlterUserScramCredentials changes SCRAM logins only, here too.
 */
export function plainUsers(store: ScramCredentialStore, users: readonly BootstrapUser[]): Map<string, ScramCredential> {
  const plain = new Map<string, ScramCredential>();
  for (const u of users) {
    const credential = store.get(u.name, SCRAM_SHA_512);
    if (credential) plain.set(u.name, credential);
  }
  return plain;
}
