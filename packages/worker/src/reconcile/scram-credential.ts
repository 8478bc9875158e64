/*
 * The SCRAM credential of a service account as the broker takes it (salt,
 * iterations, salted password), sealed under KAPPA_SECRETS_KEY on the account
 * row (`scramSealed`). The worker computes it once when it issues a password
 * and installs that same credential on the primary cluster and on every
 * registered cluster where the account needs access, so one password (picked
 * up once in the portal) works in every environment and a rotation reaches
 * them all. It is not the password: it cannot be shown to anyone, and the
 * password cannot be derived from it.
 */
import { z } from "zod";
import { decryptSecret, encryptSecret } from "@kappa/catalog";
import type { ScramCredential } from "../kafka/cluster.ts";
import { scramUpsertion } from "../scram.ts";

const SEALED = z.object({ mechanism: z.literal("SCRAM-SHA-512"), iterations: z.number().int().min(4096), salt: z.string().min(1), saltedPassword: z.string().min(1) });

const associatedData = (accountId: string) => `scram:${accountId}`;

/** A new SCRAM-SHA-512 credential of `password`, and its sealed form for the account row. */
export function sealedScramCredential(key: Buffer, accountId: string, password: string): { credential: ScramCredential; sealed: string } {
  const credential = scramUpsertion("SCRAM-SHA-512", password);
  const body = JSON.stringify({ mechanism: "SCRAM-SHA-512", iterations: credential.iterations, salt: credential.salt.toString("base64"), saltedPassword: credential.saltedPassword.toString("base64") });
  return { credential, sealed: encryptSecret(key, body, associatedData(accountId)) };
}

/** Opens the sealed credential (in memory only). */
export function openScramCredential(key: Buffer, accountId: string, sealed: string): ScramCredential {
  const body = SEALED.parse(JSON.parse(decryptSecret(key, sealed, associatedData(accountId))));
  return { iterations: body.iterations, salt: Buffer.from(body.salt, "base64"), saltedPassword: Buffer.from(body.saltedPassword, "base64") };
}
