/*
 * The message browser's Kafka principal, `User:kappa-message-browser`: a
 * platform account (not a domain's) that may only DESCRIBE and READ the live
 * product topics — no consumer group, no write, nothing else. The portal reads
 * with it by partition assignment; the worker issues its SCRAM password and
 * seals it (KAPPA_SECRETS_KEY, associated data: the name) into
 * PlatformCredential, where only the portal's server opens it.
 *
 * Reconciled on start and on a short timer: credentials issued when the
 * catalog or the cluster lacks them, and the ACLs brought to exactly one
 * LITERAL READ + DESCRIBE per live product topic and per dead-letter topic
 * (`<topic>.dlq` of a product with a DLQ rule; the catalog shows its records
 * to the product's owners only) — incrementally between
 * occasional full passes (ReaderState). Only this principal's own ALLOW
 * bindings are ever deleted.
 */
import { dlqTopicOf, encryptSecret, generatePassword, type Db } from "@kappa/catalog";
import type { AclBinding, KafkaCluster } from "../kafka/cluster.ts";
import { errorMessage, type Logger } from "../log.ts";
import { aclKey, DLQ_RULE_SELECT, LIVE_PRODUCT_STATUSES } from "./diff.ts";
import { auditAsWorker } from "./entities.ts";

export const MESSAGE_BROWSER_PRINCIPAL_NAME = "kappa-message-browser";
const PRINCIPAL = `User:${MESSAGE_BROWSER_PRINCIPAL_NAME}`;
const MECHANISM = "SCRAM-SHA-512" as const;
const OPERATIONS = ["READ", "DESCRIBE"] as const;

export function readerBindings(topics: readonly string[]): AclBinding[] {
  return topics.flatMap((topic) => OPERATIONS.map((operation): AclBinding => ({ resourceType: "TOPIC", resourceName: topic, patternType: "LITERAL", principal: PRINCIPAL, host: "*", operation, permission: "ALLOW" })));
}

export interface ReaderReconcileResult {
  issued: boolean;
  created: number;
  deleted: number;
  /** True when the principal's bindings were described and diffed (a full pass); false when only catalog changes were applied. */
  full: boolean;
}

/** Passes between two full ones (describe + diff): with the default 10 s timer, drift made on the broker by hand is undone within 10 minutes. */
export const READER_FULL_PASS_EVERY = 60;

/**
 * What the reconcile timer remembers between passes: the live product topics
 * the principal was last brought to. A pass reads the live topic names from
 * the catalog (one indexed query) and only grants the topics that became live
 * and removes those that stopped being live since the last pass; every
 * READER_FULL_PASS_EVERY passes (and on the first, and after a failure) it
 * describes the principal's bindings on the cluster and diffs all of them, as
 * every pass used to — at 10,000 products that was 20,000 bindings described
 * and compared every 10 s. Comparing topic sets, not `updatedAt`, also sees
 * status changes written without touching `updatedAt`.
 */
export class ReaderState {
  known: Set<string> | null = null;
  passesSinceFull = 0;
}

export async function reconcileMessageBrowser(db: Db, cluster: KafkaCluster, secretsKey: Buffer, log: Logger, state?: ReaderState): Promise<ReaderReconcileResult> {
  let issued = false;
  const stored = await db.platformCredential.findUnique({ where: { name: MESSAGE_BROWSER_PRINCIPAL_NAME } });
  const onCluster = (await cluster.describeScramUsers([MESSAGE_BROWSER_PRINCIPAL_NAME])).get(MESSAGE_BROWSER_PRINCIPAL_NAME)?.includes(MECHANISM) ?? false;
  if (!stored || !onCluster) {
    // Broker first: a crash before the catalog write leaves no sealed password the cluster does not accept.
    const password = generatePassword();
    await cluster.upsertScramUser(MESSAGE_BROWSER_PRINCIPAL_NAME, MECHANISM, password);
    const sealed = encryptSecret(secretsKey, password, MESSAGE_BROWSER_PRINCIPAL_NAME);
    await db.platformCredential.upsert({
      where: { name: MESSAGE_BROWSER_PRINCIPAL_NAME },
      create: { name: MESSAGE_BROWSER_PRINCIPAL_NAME, mechanism: MECHANISM, secretCiphertext: sealed },
      update: { mechanism: MECHANISM, secretCiphertext: sealed, issuedAt: new Date() },
    });
    await auditAsWorker(db, stored ? "platform.credentials.reissued" : "platform.credentials.issued", "Platform", MESSAGE_BROWSER_PRINCIPAL_NAME, { principal: PRINCIPAL, mechanism: MECHANISM, reason: stored ? "user missing on the cluster" : "first issue" });
    log.info("issued the message browser's SCRAM credentials", { principal: PRINCIPAL });
    issued = true;
  }
  const products = await db.dataProduct.findMany({ where: { status: { in: [...LIVE_PRODUCT_STATUSES] } }, select: { topicName: true, ...DLQ_RULE_SELECT } });
  // The dead-letter topic of a product with a DLQ rule too (issue 29): the DLQ panel reads it for the product's owners.
  const live = new Set(products.flatMap((p) => (p.qualityRules.length > 0 ? [p.topicName, dlqTopicOf(p.topicName)] : [p.topicName])));
  const known = state?.known ?? null;
  const full = !state || known === null || state.passesSinceFull + 1 >= READER_FULL_PASS_EVERY;
  // Forgotten first: a failure below leaves the next pass a full one.
  if (state) state.known = null;
  let create: AclBinding[];
  let remove: AclBinding[];
  if (full || known === null) {
    const desired = readerBindings([...live]);
    const actual = await cluster.describeAcls([PRINCIPAL]);
    const want = new Set(desired.map(aclKey));
    const have = new Set(actual.map(aclKey));
    create = desired.filter((b) => !have.has(aclKey(b)));
    // Everything else this principal holds goes: it must never hold more than product topics.
    remove = actual.filter((b) => b.permission === "ALLOW" && !want.has(aclKey(b)));
  } else {
    create = readerBindings([...live].filter((t) => !known.has(t)));
    remove = readerBindings([...known].filter((t) => !live.has(t)));
  }
  await cluster.deleteAcls(remove);
  await cluster.createAcls(create);
  if (create.length + remove.length > 0) {
    await auditAsWorker(db, "platform.acls.reconciled", "Platform", MESSAGE_BROWSER_PRINCIPAL_NAME, { principal: PRINCIPAL, created: create.length, deleted: remove.length });
  }
  if (state) {
    state.known = live;
    state.passesSinceFull = full ? 0 : state.passesSinceFull + 1;
  }
  return { issued, created: create.length, deleted: remove.length, full };
}

/** Runs the reconcile on a timer, logging failures (Kafka down) and retrying on the next tick. */
export class MessageBrowserPrincipal {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private readonly state = new ReaderState();
  lastError: string | null = null;

  constructor(
    private readonly db: Db,
    private readonly cluster: KafkaCluster,
    private readonly secretsKey: Buffer,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    this.timer = setInterval(() => void this.runNow(), this.intervalMs);
    void this.runNow();
  }

  runNow(): Promise<void> {
    this.running ??= reconcileMessageBrowser(this.db, this.cluster, this.secretsKey, this.log, this.state)
      .then(() => {
        this.lastError = null;
      })
      .catch((error: unknown) => {
        this.lastError = errorMessage(error);
        this.log.warn("message browser principal reconcile failed", { error: this.lastError });
      })
      .finally(() => {
        this.running = null;
      });
    return this.running;
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
