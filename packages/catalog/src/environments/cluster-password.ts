/*
 * A registered cluster's admin password, sealed with KAPPA_SECRETS_KEY. Its
 * own module (subpath `@kappa/catalog/cluster-password`, node:crypto only) so
 * `npm start` can check the embedded prod environment's row on every restart
 * without loading the whole catalog.
 */
import { decryptSecret, encryptSecret } from "../secrets.ts";

/** The associated data binds a sealed password to its environment (unique, never renamed). */
const aad = (environment: string) => `cluster:${environment}`;

export function sealClusterPassword(key: Buffer, environment: string, password: string): string {
  return encryptSecret(key, password, aad(environment));
}

/** The worker opens it to sign in, and `npm start` to see whether the embedded prod row is current. */
export function openClusterPassword(key: Buffer, cluster: { environment: string; adminPasswordSealed: string | null }): string | null {
  return cluster.adminPasswordSealed === null ? null : decryptSecret(key, cluster.adminPasswordSealed, aad(cluster.environment));
}
