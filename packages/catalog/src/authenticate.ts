import type { Db } from "./db.ts";
import { hashPassword, verifyPassword } from "./passwords.ts";

// Compared against when the e-mail is unknown, so both paths cost one scrypt.
let dummyHash: Promise<string> | undefined;

/** Checks local credentials; returns the user or null, never why it failed. */
export async function authenticateLocalUser(db: Db, email: string, password: string) {
  const user = await db.user.findUnique({
    where: { email: email.trim().toLowerCase() },
    omit: { passwordHash: false },
  });
  if (!user?.passwordHash) {
    await verifyPassword(password, await (dummyHash ??= hashPassword("not-a-password")));
    return null;
  }
  if (!(await verifyPassword(password, user.passwordHash))) return null;
  // "Last sign-in" (members and users pages) counts password sign-ins as well as SSO ones.
  const lastSignInAt = new Date();
  await db.user.update({ where: { id: user.id }, data: { lastSignInAt } });
  const { passwordHash: _hash, ...safe } = user;
  return { ...safe, lastSignInAt };
}

/** Finds or creates the user an OIDC provider vouched for (no local password). */
export async function upsertSsoUser(db: Db, email: string, name: string) {
  return db.user.upsert({
    where: { email: email.trim().toLowerCase() },
    create: { email: email.trim().toLowerCase(), name },
    update: {},
  });
}
