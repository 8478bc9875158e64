import pg from "pg";

/**
 * Records the embedded prod broker as the registered `prod` environment (demo
 * only; in production an admin registers clusters on the admin page). The
 * admin password is sealed as the portal would seal it; an existing row is
 * brought up to date (the port may have changed between starts). A restart
 * only reads the row (plain pg and the sealing module): the catalog is loaded
 * when the row must be written.
 */
export async function registerEmbeddedProd(databaseUrl: string, secretsKey: string, bootstrap: string, admin: { name: string; password: string }) {
  const [{ openClusterPassword }, { parseSecretsKey }] = await Promise.all([import("@kappa/catalog/cluster-password"), import("@kappa/catalog/secrets")]);
  const key = parseSecretsKey(secretsKey);
  const data = { bootstrap, securityProtocol: "SASL_PLAINTEXT", saslMechanism: "scram-sha-512", adminUser: admin.name };
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  let current: boolean;
  try {
    const row = (
      await client.query<{ bootstrap: string; securityProtocol: string; saslMechanism: string; adminUser: string | null; adminPasswordSealed: string | null }>(
        `SELECT bootstrap, "securityProtocol", "saslMechanism", "adminUser", "adminPasswordSealed" FROM "Cluster" WHERE environment = 'prod'`,
      )
    ).rows[0];
    const opened = (() => {
      try {
        return row ? openClusterPassword(key, { ...row, environment: "prod" }) : null;
      } catch {
        return null; // sealed under another key: write it again
      }
    })();
    current = !!row && row.bootstrap === data.bootstrap && row.securityProtocol === data.securityProtocol && row.saslMechanism === data.saslMechanism && row.adminUser === data.adminUser && opened === admin.password;
  } finally {
    await client.end();
  }
  if (current) return;
  const { createPrismaClient, sealClusterPassword } = await import("@kappa/catalog");
  const db = createPrismaClient(databaseUrl);
  try {
    const sealed = { ...data, adminPasswordSealed: sealClusterPassword(key, { ...data, environment: "prod" }, admin.password) };
    await db.cluster.upsert({ where: { environment: "prod" }, create: { environment: "prod", ...sealed }, update: sealed });
  } finally {
    await db.$disconnect();
  }
}
