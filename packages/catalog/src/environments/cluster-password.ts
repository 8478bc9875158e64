/*
 * A registered cluster's admin password, sealed with KAPPA_SECRETS_KEY. Its
 * own module (subpath `@kappa/catalog/cluster-password`, node:crypto only) so
 * `npm start` can check the embedded prod environment's row on every restart
 * without loading the whole catalog.
 */
import { decryptSecret, encryptSecret } from "../secrets.ts";

/**
 * Where and how the password is sent. The seal binds it (issue 30, finding
 * 2): a sealed password opens only for the bootstrap servers, security
 * protocol and SASL mechanism it was entered for, so a row pointed at another
 * host (or downgraded to PLAIN or to no TLS) cannot make the worker send it
 * there — the password must be entered again (updateCluster says so).
 */
export interface ClusterTarget {
  environment: string;
  bootstrap: string;
  securityProtocol: string;
  saslMechanism: string;
}

/** The associated data binds a sealed password to its environment (unique, never renamed) and to its target. */
const aad = (t: ClusterTarget) => `cluster:${t.environment}\ntarget:${JSON.stringify([t.bootstrap, t.securityProtocol, t.saslMechanism])}`;
/** Before the target was bound: the environment only. Such a seal still opens (rows written by earlier versions); the portal refuses to re-target it without a new password. */
const legacyAad = (environment: string) => `cluster:${environment}`;

export function sealClusterPassword(key: Buffer, target: ClusterTarget, password: string): string {
  return encryptSecret(key, password, aad(target));
}

/** The worker opens it to sign in, and `npm start` to see whether the embedded prod row is current. Throws when the row's target is not the one it was sealed for. */
export function openClusterPassword(key: Buffer, cluster: ClusterTarget & { adminPasswordSealed: string | null }): string | null {
  if (cluster.adminPasswordSealed === null) return null;
  try {
    return decryptSecret(key, cluster.adminPasswordSealed, aad(cluster));
  } catch (error) {
    try {
      return decryptSecret(key, cluster.adminPasswordSealed, legacyAad(cluster.environment));
    } catch {
      throw new Error(`${cluster.environment}: the stored admin password was not sealed for this bootstrap, security protocol and SASL mechanism (or under another KAPPA_SECRETS_KEY); enter it again`, { cause: error });
    }
  }
}

/** Whether a change from `before` to `after` changes where or how the password is sent. */
export function clusterTargetChanges(before: Omit<ClusterTarget, "environment">, after: Omit<ClusterTarget, "environment">): ("bootstrap" | "securityProtocol" | "saslMechanism")[] {
  return (["bootstrap", "securityProtocol", "saslMechanism"] as const).filter((field) => before[field] !== after[field]);
}
