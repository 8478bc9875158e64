import "server-only";
import { readFileSync } from "node:fs";
import { decryptSecret, NotConfiguredError, parseSecretsKey, type RecordSource } from "@kappa/catalog";
import { env } from "@/env";
import { db } from "./db";
import { KafkaRecordSource } from "./kafka/record-source";

/*
 * The message browser's Kafka access, on the server only: the worker issues
 * the `kappa-message-browser` SCRAM user and seals its password into
 * PlatformCredential under KAPPA_SECRETS_KEY; we open it here, keep one
 * connection set, and rebuild it when the worker re-issues the password.
 */
const PRINCIPAL = "kappa-message-browser";

let current: { issuedAt: number; source: KafkaRecordSource } | null = null;

/**
 * The reader, opened at its first use: routes hand this to the catalog, which
 * decides who may read before it touches Kafka — so a caller without access
 * gets 403, never the 503 of a deployment whose reader is not set up yet.
 */
export function lazyMessageReader(): RecordSource {
  return {
    bounds: async (topic, partitions) => (await messageReader()).bounds(topic, partitions),
    offsetsForTimestamp: async (topic, partitions, timestampMs) => (await messageReader()).offsetsForTimestamp(topic, partitions, timestampMs),
    read: async (topic, partition, from, maxBytes) => (await messageReader()).read(topic, partition, from, maxBytes),
  };
}

export async function messageReader(): Promise<RecordSource> {
  const e = env();
  if (!e.KAPPA_SECRETS_KEY) throw new NotConfiguredError("This portal has no KAPPA_SECRETS_KEY, so it cannot open the message browser's Kafka credentials.");
  const credential = await db().platformCredential.findUnique({ where: { name: PRINCIPAL } });
  if (!credential) throw new NotConfiguredError("The worker has not issued the message browser's Kafka credentials yet; try again in a few seconds.");
  if (current && current.issuedAt === credential.issuedAt.getTime()) return current.source;
  const password = decryptSecret(parseSecretsKey(e.KAPPA_SECRETS_KEY), credential.secretCiphertext, PRINCIPAL);
  const brokers = (e.KAFKA_READER_BROKERS ?? e.KAFKA_BOOTSTRAP_DISPLAY).split(",").map((b) => b.trim());
  const mechanism = e.KAFKA_READER_SASL_MECHANISM;
  const ca = e.KAFKA_READER_SSL_CA_FILE ? readFileSync(e.KAFKA_READER_SSL_CA_FILE, "utf8") : undefined;
  current?.source.close();
  const source = new KafkaRecordSource({
    brokers,
    sasl: mechanism === "none" ? null : { mechanism: mechanism === "scram-sha-256" ? "SCRAM-SHA-256" : "SCRAM-SHA-512", username: PRINCIPAL, password },
    tls: e.KAFKA_READER_SSL ? (ca ? { ca } : {}) : null,
  });
  current = { issuedAt: credential.issuedAt.getTime(), source };
  return source;
}
