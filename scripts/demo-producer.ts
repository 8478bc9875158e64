/*
 * The demo traffic's producer credentials (`npm start` in demo mode, with the
 * embedded broker and the demo traffic on — never otherwise).
 *
 * The demo traffic writes Order Events and Payments Captured through
 * `@confluentinc/schemaregistry`'s serializer (scripts/demo-traffic.ts), in
 * Confluent's wire format that Flink's `avro-confluent` format and every
 * registry client read: the portal's registry serves a product's schema (with
 * its rules, and the DEK of Order Events' encrypted field) to the producer
 * account of the product's domain (`orders-producer`, `payments-producer`,
 * created when the domain's first product is approved), and only that account
 * may WRITE the domain's topics. So the demo traffic *is* each domain's
 * producing application, and like any producing application it needs that
 * account's password. In production the owners pick the password up once in
 * the portal and hand it to their application; the demo has no one to do
 * that, and taking the owners' one-time pickup would leave nothing for them.
 *
 * Design: on the first start, before the worker runs, the launcher issues each
 * account's credential itself, the way the worker would (one password,
 * installed on the embedded broker as SCRAM-SHA-512, then the catalog row:
 * scrypt hash, issue time, the password sealed for the owners' one-time
 * pickup, the sealed SCRAM credential for other environments, and the audit
 * event `serviceAccount.credentials.issued`). The worker then finds the
 * credential on the broker and in the catalog and leaves it alone. The owners'
 * pickup is untouched: they can still pick the same password up once. The
 * launcher keeps its own copy of each in the data folder, one file per account
 * (DEMO_PRODUCERS: `demo-producer.sealed` for orders — its name since the
 * demo first produced through the registry — and
 * `demo-producer-payments.sealed`), mode 0600, AES-256-GCM under
 * KAPPA_SECRETS_KEY like every stored secret, bound to the account and the
 * issue time; it is never printed or logged.
 *
 * Nothing here changes a permission: the demo traffic authenticates to the
 * broker and to the registry as the producer accounts, through the same
 * checks as any client. When the owners rotate a credential in the portal,
 * the copy no longer matches the account's issue time and the demo traffic
 * stops writing that domain's product, saying why (like any application whose
 * password was rotated); it never takes the new password. A data folder whose
 * payments producer got its credential from the worker before the demo wrote
 * Payments Captured this way holds no copy of it: the demo writes no payments
 * there and says so.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

/** The domains whose producer accounts the demo traffic writes as: the product it writes, the launcher's sealed copy of the password in the data folder. */
export const DEMO_PRODUCERS = {
  orders: { product: "Order Events", file: "demo-producer.sealed" },
  payments: { product: "Payments Captured", file: "demo-producer-payments.sealed" },
} as const;
export type DemoProducerDomain = keyof typeof DEMO_PRODUCERS;
const DOMAINS = Object.keys(DEMO_PRODUCERS) as DemoProducerDomain[];

export type DemoProducerCredential = { ok: true; username: string; password: string; issuedNow: boolean } | { ok: false; reason: string };

interface ProducerRow {
  slug: string;
  id: string;
  name: string;
  /** secretIssuedAt in epoch milliseconds (read as UTC, as Prisma stores it); null before the first issue. */
  issuedMs: string | null;
  hasHash: boolean;
}

interface KeptCopy {
  accountId: string;
  issuedMs: number;
  sealed: string;
}

const sealContext = (accountId: string) => `demo-producer:${accountId}`;

/** The kept copy's password when it belongs to this account and its current credential; otherwise why not. */
export function openKeptCopy(file: string, key: Buffer, account: { id: string; name: string; issuedMs: number | null }, decrypt: (key: Buffer, sealed: string, context: string) => string): { password: string } | { reason: string } {
  if (!existsSync(file)) return { reason: `${account.name}'s credential was issued without the demo traffic (started with KAPPA_DEMO_TRAFFIC=0 or before the demo produced through the registry), so the demo holds no copy of its password` };
  let copy: KeptCopy;
  try {
    copy = JSON.parse(readFileSync(file, "utf8")) as KeptCopy;
  } catch {
    return { reason: `${file} is unreadable` };
  }
  if (copy.accountId !== account.id) return { reason: `${file} belongs to another account` };
  if (account.issuedMs === null || copy.issuedMs !== account.issuedMs) {
    return { reason: `${account.name}'s credential was rotated since the demo issued it (the owners' new password is theirs; the demo does not take it)` };
  }
  try {
    return { password: decrypt(key, copy.sealed, sealContext(account.id)) };
  } catch {
    return { reason: `${file} was sealed under another KAPPA_SECRETS_KEY` };
  }
}

/** Writes the copy (mode 0600): the password sealed under the secrets key, bound to the account and its issue time. */
export function writeKeptCopy(file: string, key: Buffer, accountId: string, issuedAt: Date, password: string, encrypt: (key: Buffer, plaintext: string, context: string) => string): void {
  const copy: KeptCopy = { accountId, issuedMs: issuedAt.getTime(), sealed: encrypt(key, password, sealContext(accountId)) };
  writeFileSync(file, JSON.stringify(copy) + "\n", { mode: 0o600 });
}

async function producerRows(databaseUrl: string): Promise<Map<string, ProducerRow>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<ProducerRow>(
      `SELECT d.slug, a.id, a.name, (extract(epoch FROM a."secretIssuedAt") * 1000)::bigint::text AS "issuedMs", a."secretHash" IS NOT NULL AS "hasHash"
         FROM "ServiceAccount" a JOIN "Domain" d ON d.id = a."domainId"
        WHERE d.slug = ANY($1) AND a."isProducer"`,
      [DOMAINS],
    );
    return new Map(rows.map((r) => [r.slug, r]));
  } finally {
    await client.end();
  }
}

export interface DemoProducerOptions {
  /** The catalog's owner role (the launcher's DATABASE_URL). */
  databaseUrl: string;
  /** KAPPA_SECRETS_KEY as configured (hex or base64). */
  secretsKey: string;
  dataDir: string;
  /** The embedded broker and its admin, to install the credentials on. */
  brokers: string[];
  admin: { name: string; password: string };
}

/**
 * The producer credentials of the demo's domains (DEMO_PRODUCERS) for the
 * demo traffic, each issued now when its account has none yet (first start;
 * call before the worker starts), else the launcher's kept copy if it is
 * still the account's credential. A restart reads the rows with plain pg; the
 * catalog and the worker's Kafka client are loaded only to issue.
 */
export async function demoProducerCredentials(options: DemoProducerOptions): Promise<Record<DemoProducerDomain, DemoProducerCredential>> {
  const { parseSecretsKey, decryptSecret, encryptSecret } = await import("@kappa/catalog/secrets");
  const key = parseSecretsKey(options.secretsKey);
  const accounts = await producerRows(options.databaseUrl);
  const out = {} as Record<DemoProducerDomain, DemoProducerCredential>;
  const toIssue: { domain: DemoProducerDomain; account: ProducerRow; file: string }[] = [];
  for (const domain of DOMAINS) {
    const file = path.join(options.dataDir, DEMO_PRODUCERS[domain].file);
    const account = accounts.get(domain);
    if (!account) out[domain] = { ok: false, reason: `the ${domain} domain has no producer account (the demo seed did not approve ${DEMO_PRODUCERS[domain].product})` };
    else if (account.hasHash) {
      const opened = openKeptCopy(file, key, { ...account, issuedMs: account.issuedMs === null ? null : Number(account.issuedMs) }, decryptSecret);
      out[domain] = "password" in opened ? { ok: true, username: account.name, password: opened.password, issuedNow: false } : { ok: false, reason: opened.reason };
    } else toIssue.push({ domain, account, file });
  }
  if (toIssue.length === 0) return out;

  const [{ createPrismaClient, generatePassword, hashPassword }, { KafkaJsCluster, sealedScramCredential, silentLogger }] = await Promise.all([import("@kappa/catalog"), import("@kappa/worker")]);
  const cluster = new KafkaJsCluster({ brokers: options.brokers, sasl: { mechanism: "SCRAM-SHA-512", username: options.admin.name, password: options.admin.password }, ssl: false, clientId: "kappa-demo-launcher" }, silentLogger);
  const db = createPrismaClient(options.databaseUrl);
  try {
    for (const { domain, account, file } of toIssue) {
      const password = generatePassword();
      const issuedAt = new Date();
      const { credential, sealed } = sealedScramCredential(key, account.id, password);
      try {
        // The copy first: a crash before the catalog's commit leaves the account without a hash, and the next start
        // issues again (a new password, a new copy); the broker before the catalog, as the worker does, so the catalog
        // never names a credential the broker lacks.
        writeKeptCopy(file, key, account.id, issuedAt, password, encryptSecret);
        // Under the row's lock, as the worker issues (reconcile/entities.ts): whoever holds it issues, the other sees the hash.
        const issued = await db.$transaction(
          async (tx) => {
            const locked = await tx.$queryRaw<{ secretHash: string | null }[]>`SELECT "secretHash" FROM "ServiceAccount" WHERE id = ${account.id} FOR UPDATE`;
            if (locked[0]?.secretHash !== null) return false;
            await cluster.upsertScramCredential(account.name, "SCRAM-SHA-512", credential);
            await tx.serviceAccount.update({
              where: { id: account.id },
              data: { secretHash: await hashPassword(password), secretIssuedAt: issuedAt, secretCiphertext: encryptSecret(key, password, account.id), scramSealed: sealed },
            });
            await tx.auditEvent.create({
              data: {
                actorEmail: "system",
                action: "serviceAccount.credentials.issued",
                entityType: "ServiceAccount",
                entityId: account.id,
                data: { mechanism: "SCRAM-SHA-512", principal: `User:${account.name}`, reason: "first issue, by npm start in demo mode for the demo traffic (the owners' one-time pickup stays theirs)" },
              },
            });
            return true;
          },
          { isolationLevel: "ReadCommitted", timeout: 60_000, maxWait: 15_000 },
        );
        if (issued) out[domain] = { ok: true, username: account.name, password, issuedNow: true };
        else {
          rmSync(file, { force: true });
          out[domain] = { ok: false, reason: `${account.name}'s credential was issued by someone else meanwhile` };
        }
      } catch (error) {
        // Not committed: the next start issues again.
        rmSync(file, { force: true });
        out[domain] = { ok: false, reason: `${account.name}'s credential could not be issued: ${error instanceof Error ? error.message : String(error)}` };
      }
    }
  } finally {
    await Promise.allSettled([db.$disconnect(), cluster.close()]);
  }
  return out;
}
