/*
 * Derived products on Apache Flink (issue 34), the worker's part, as one step
 * of each observation cycle:
 *
 * - deploy: an approved derived product whose topic is provisioned (ACTIVE)
 *   and has no job yet gets a dedicated service account of its domain (its
 *   grants: reconcile/derived-grants.ts), SCRAM credentials issued by the
 *   worker and sealed for it, and its statement started through the Flink SQL
 *   Gateway; the job id is stored on the DerivedProduct row. A job of the same
 *   name already running (a worker that died before storing the id) is adopted,
 *   not started twice.
 * - stop: a deployed job that must no longer run — its product is no longer
 *   live (retired), an input is no longer live, or the product's domain no
 *   longer holds a granted subscription to an input of another domain
 *   (revoked, expired, the input retired) — is cancelled through Flink's REST
 *   API; the row says STOPPED, when and why, the owners are notified, and
 *   the job account's ACLs are brought to what the catalog still grants it
 *   (the input's READ gone; every grant gone once the product is retired).
 *   A stopped job stays stopped: nothing here starts it again.
 * - observe: each running job is read from Flink's REST API into the catalog
 *   (state, start, rates, watermark lag, last checkpoint, restarts, error),
 *   which the portal serves as GET /api/v1/products/{id}/job.
 * - redeploy: a job Flink answers it does not know (404: a session cluster
 *   restarted without HA forgets its jobs) is started again from the
 *   product's statement, restoring the last completed checkpoint the observer
 *   recorded (the cluster retains checkpoints), else from the consumer
 *   group's committed offsets. Flink unreachable is not that: the job stays
 *   UNKNOWN. A redeploy that fails is the job's error, tried again next cycle.
 */
import {
  ACCOUNT_NAME_PATTERN,
  cancelDerivedJob,
  columnsFromOutputSchema,
  derivedJobStatus,
  FlinkJobNotFoundError,
  notify,
  resolveDerivedInputs,
  startDerivedJob,
  type Db,
  type DerivedInput,
  type DerivedJobSpec,
  type DerivedJobStatus,
  type Tx,
} from "@kappa/catalog";
import { jsonSafe } from "../json.ts";
import { errorMessage } from "../log.ts";
import type { ObservationCycle, ObservationStep } from "../observe/observer.ts";
import { derivedJobGroupId, derivedJobTransactionalPrefix, unsealJobPassword } from "../reconcile/derived-grants.ts";
import { GRANTED_SUBSCRIPTION_STATUSES, LIVE_PRODUCT_STATUSES } from "../reconcile/diff.ts";
import { auditAsWorker, ensureCredentials, reconcilePrincipalAcls, type ReconcileContext } from "../reconcile/entities.ts";
import { runJobCommands } from "./job-life-cycle.ts";

export interface FlinkOptions {
  /** FLINK_SQL_GATEWAY_URL: where statements are submitted. */
  gatewayUrl: string;
  /** FLINK_REST_URL: where jobs are observed (the JobManager's REST API). */
  restUrl: string;
  /** The Kafka bootstrap servers as the Flink cluster reaches them. */
  bootstrap: string;
  /** FLINK_SCHEMA_REGISTRY_URL: the portal's Schema Registry as the jobs reach it (Avro inputs); the job logs in with its own account. */
  registryUrl?: string;
  /** FLINK_SAVEPOINT_DIR: where a paused job's savepoint is written; unset: the cluster's `execution.checkpointing.savepoint-dir`. */
  savepointDir?: string;
}

export const derivedJobName = (topicName: string) => `kappa-derived:${topicName}`;

/** The job account's Kafka user name: `<domain-slug>-flink-<product id tail>`. */
export function derivedJobAccountName(domainSlug: string, productId: string): string {
  const name = `${domainSlug}-flink-${productId.slice(-10).toLowerCase()}`;
  if (!ACCOUNT_NAME_PATTERN.test(name)) throw new Error(`no valid account name for the job of product ${productId} in domain ${domainSlug}`);
  return name;
}

/**
 * Flink's errors may quote a table's options, the job's JAAS login among them:
 * what the catalog keeps (and product viewers read) never holds the password.
 */
export function redactLogins(text: string): string {
  return text.replace(/password\s*=\s*"[^"]*"/gi, 'password="***"').replace(/password\s*=\s*'[^']*'/gi, "password='***'");
}

/**
 * One deployment of a product at a time across workers: a transaction-scoped
 * advisory lock (not the row's: ensureCredentials seals the password into
 * that row from its own transaction), false when another worker holds it.
 */
async function deployLock(tx: Tx, productId: string): Promise<boolean> {
  const [row] = await tx.$queryRaw<{ locked: boolean }[]>`SELECT pg_try_advisory_xact_lock(hashtext(${`derived-job:${productId}`})) AS locked`;
  return row?.locked === true;
}

export class DerivedJobs implements ObservationStep {
  readonly name = "derived-jobs";

  constructor(
    readonly ctx: ReconcileContext,
    readonly flink: FlinkOptions,
  ) {}

  async run(cycle: ObservationCycle): Promise<void> {
    // The owners' pause, resume and replay first: a job they changed is observed in the same cycle.
    await runJobCommands(this, cycle.now);
    const undeployed = await this.ctx.db.derivedProduct.findMany({ where: { jobId: null }, select: { productId: true } });
    const ready = undeployed.length === 0 ? [] : await this.ctx.db.dataProduct.findMany({ where: { id: { in: undeployed.map((d) => d.productId) }, status: "ACTIVE" }, select: { id: true } });
    for (const { id: productId } of ready) {
      try {
        await this.deploy(productId);
      } catch (error) {
        const message = redactLogins(errorMessage(error));
        this.ctx.log.warn("derived product's job not deployed", { productId, error: message });
        await this.ctx.db.derivedProduct.update({ where: { productId }, data: { jobError: `Not deployed: ${message}`.slice(0, 2_000) } });
      }
    }
    const running = await this.ctx.db.derivedProduct.findMany({ where: { jobId: { not: null }, jobStoppedAt: null, jobPausedAt: null }, select: { productId: true, jobId: true, jobMetrics: true } });
    const mustStop = await stopReasons(this.ctx.db, running.map((r) => r.productId));
    for (const { productId, jobId, jobMetrics } of running) {
      // The last completed checkpoint observed of this very job (a replay's or a new statement's job does not inherit its predecessor's).
      const observed = (jobMetrics ?? {}) as Record<string, unknown>;
      const checkpointPath = observed.checkpointJobId === jobId ? stringOrNull(observed.lastCheckpointPath) : null;
      const reason = mustStop.get(productId);
      if (reason) {
        try {
          await this.stop(productId, jobId!, reason);
        } catch (error) {
          // Tried again next cycle; meanwhile the job's error says why it still runs.
          const message = redactLogins(errorMessage(error));
          this.ctx.log.warn("derived product's job not stopped", { productId, jobId, reason, error: message });
          await this.ctx.db.derivedProduct.update({ where: { productId }, data: { jobError: `Must stop (${reason}) but not stopped yet: ${message}`.slice(0, 2_000) } });
        }
        continue;
      }
      let status: DerivedJobStatus;
      try {
        status = await derivedJobStatus(this.flink.restUrl, jobId!, cycle.now);
      } catch (error) {
        if (error instanceof FlinkJobNotFoundError) {
          try {
            await this.redeploy(productId, jobId!, checkpointPath);
          } catch (failed) {
            // Tried again next cycle; a checkpoint Flink could not restore is not tried again (the next try reads the committed offsets).
            const message = redactLogins(errorMessage(failed));
            this.ctx.log.warn("derived product's lost job not redeployed", { productId, jobId, checkpointPath, error: message });
            await this.ctx.db.derivedProduct.updateMany({
              where: { productId, jobId, jobPausedAt: null, jobStoppedAt: null },
              data: {
                jobState: "UNKNOWN",
                jobError: `Flink lost job ${jobId}; not redeployed yet${checkpointPath ? ` from checkpoint ${checkpointPath}` : ""}: ${message}`.slice(0, 2_000),
                jobObservedAt: new Date(cycle.now),
                ...(checkpointPath ? { jobMetrics: jsonSafe({ ...observed, lastCheckpointPath: null }) } : {}),
              },
            });
          }
          continue;
        }
        await this.ctx.db.derivedProduct.updateMany({ where: { productId, jobId, jobPausedAt: null }, data: { jobState: "UNKNOWN", jobError: redactLogins(errorMessage(error)).slice(0, 2_000), jobObservedAt: new Date(cycle.now) } });
        continue;
      }
      // Only the job read, and only while not paused: a pause, resume or replay in another worker meanwhile wins.
      await this.ctx.db.derivedProduct.updateMany({
        where: { productId, jobId, jobPausedAt: null, jobStoppedAt: null },
        data: {
          jobState: status.state,
          jobStartedAt: status.startedAt ? new Date(status.startedAt) : null,
          jobError: status.error === null ? null : redactLogins(status.error),
          // A job that has not completed a checkpoint yet (just restored) keeps the one it was restored from.
          jobMetrics: jsonSafe({ ...status, lastCheckpointPath: status.lastCheckpointPath ?? checkpointPath, checkpointJobId: jobId }),
          jobObservedAt: new Date(cycle.now),
        },
      });
    }
  }

  /**
   * Flink no longer knows the product's job (a restarted session cluster):
   * starts the product's statement as a new job through the same spec as a
   * deployment (its account, group, exactly-once sink and transactional-id
   * prefix), restoring the checkpoint when there is one, else reading on from
   * the group's committed offsets; a job of the same name Flink runs already
   * (another worker redeployed it) is adopted. Stores the new job id, audits
   * derivedProduct.jobRedeployed and notifies the product's domain. Under
   * deployLock, and only while the row still holds the lost job id.
   */
  private async redeploy(productId: string, lostJobId: string, checkpointPath: string | null): Promise<void> {
    const redeployed = await this.ctx.db.$transaction(
      async (tx) => {
        if (!(await deployLock(tx, productId))) return null;
        const row = await tx.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { jobId: true, jobPausedAt: true, jobStoppedAt: true, statementVersion: true, jobStatementVersion: true } });
        if (row.jobId !== lostJobId || row.jobPausedAt || row.jobStoppedAt) return null;
        // The statement the lost job ran (a rolled-back job runs an earlier version than the approved one), which its checkpoint fits.
        const ran = row.jobStatementVersion !== null && row.jobStatementVersion !== row.statementVersion ? await tx.derivedStatementVersion.findFirst({ where: { productId, version: row.jobStatementVersion } }) : null;
        const statement = ran?.schemaVersion ? { statement: { text: ran.statement, schemaVersion: ran.schemaVersion } } : {};
        const { spec, domainId } = await this.jobSpec(productId, { ...statement, ...(checkpointPath ? { restoreFrom: checkpointPath } : { startup: { mode: "group-offsets" as const } }) });
        const adopted = await this.runningJobNamed(spec.jobName!);
        const jobId = adopted ?? (await startDerivedJob(spec));
        const checkpoint = adopted ? "none (a running job of the same name was adopted)" : (checkpointPath ?? "none");
        const note = adopted
          ? `Flink lost job ${lostJobId} (its cluster restarted); the worker adopted the running job ${jobId} of the same name.`
          : checkpointPath
            ? `Redeployed after Flink lost job ${lostJobId} (its cluster restarted), restored from checkpoint ${checkpointPath}.`
            : `Redeployed after Flink lost job ${lostJobId} (its cluster restarted): no completed checkpoint was observed, so it reads on from its consumer group's committed offsets without the old job's window state.`;
        await tx.derivedProduct.update({
          where: { productId },
          data: {
            jobId,
            jobState: "CREATED",
            jobStartedAt: null,
            jobError: null,
            jobRestoredFromSavepoint: adopted ? null : checkpointPath !== null,
            jobRestoreNote: note,
            // Until the new job completes a checkpoint of its own, the one it restored is still its last (lost again: restored again).
            jobMetrics: jsonSafe({ lastCheckpointPath: adopted ? null : checkpointPath, checkpointJobId: jobId }),
          },
        });
        const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: productId }, select: { name: true, topicName: true } });
        await auditAsWorker(tx, "derivedProduct.jobRedeployed", "DataProduct", productId, { fromJobId: lostJobId, jobId, checkpoint });
        await notify(tx, {
          kind: "derived.job-redeployed",
          title: `The Flink job of ${product.name} was redeployed`,
          body: note,
          link: `/products/${productId}`,
          entityType: "DataProduct",
          entityId: productId,
          audience: { domainMembers: [domainId] },
          webhookDomains: [domainId],
          data: { topic: product.topicName, fromJobId: lostJobId, jobId, checkpoint },
        });
        return { jobId, checkpoint };
      },
      { timeout: 300_000, maxWait: 15_000 },
    );
    if (redeployed) this.ctx.log.info("derived product's lost job redeployed", { productId, fromJobId: lostJobId, ...redeployed });
  }

  /**
   * Cancels the job (Flink waits for it to reach a terminal state), then
   * records STOPPED with the reason, audits and notifies the product's domain,
   * and reconciles the job account's ACLs so what it may no longer read (or,
   * retired, anything) is taken away at once rather than at the next drift
   * repair. Under deployLock, so a deployment in flight finishes first.
   */
  private async stop(productId: string, jobId: string, reason: string): Promise<void> {
    const flinkState = await cancelDerivedJob(this.flink.restUrl, jobId);
    const stopped = await this.ctx.db.$transaction(
      async (tx) => {
        if (!(await deployLock(tx, productId))) return null;
        const { count } = await tx.derivedProduct.updateMany({
          where: { productId, jobId, jobStoppedAt: null },
          data: { jobState: "STOPPED", jobStoppedAt: new Date(), jobStopReason: reason.slice(0, 2_000), jobError: null },
        });
        if (count !== 1) return null;
        const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: productId }, select: { name: true, domainId: true, topicName: true } });
        const row = await tx.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { serviceAccountId: true } });
        await auditAsWorker(tx, "derivedProduct.jobStopped", "DataProduct", productId, { jobId, reason, flinkState });
        await notify(tx, {
          kind: "derived.job-stopped",
          title: `The Flink job of ${product.name} was stopped`,
          body: reason,
          link: `/products/${productId}`,
          entityType: "DataProduct",
          entityId: productId,
          audience: { domainMembers: [product.domainId] },
          webhookDomains: [product.domainId],
          data: { topic: product.topicName, jobId, reason },
        });
        return row.serviceAccountId;
      },
      { timeout: 30_000, maxWait: 15_000 },
    );
    if (stopped) await reconcilePrincipalAcls(this.ctx, stopped);
    this.ctx.log.info("derived product's job stopped", { productId, jobId, reason, flinkState });
  }

  /** One product's job, under deployLock (another worker deploying it now is left to finish). */
  private async deploy(productId: string): Promise<void> {
    const { db } = this.ctx;
    await db.$transaction(
      async (tx) => {
        if (!(await deployLock(tx, productId))) return;
        const derived = await tx.derivedProduct.findUniqueOrThrow({ where: { productId } });
        if (derived.serviceAccountId) return;
        const product = await tx.dataProduct.findUniqueOrThrow({ where: { id: productId }, select: { id: true, domainId: true, topicName: true, domain: { select: { slug: true } } } });
        {
          const name = derivedJobAccountName(product.domain.slug, product.id);
          const taken = await tx.serviceAccount.findUnique({ where: { name }, select: { id: true } });
          if (taken) throw new Error(`the account name ${name} for the job is taken by another account`);
          const account = await tx.serviceAccount.create({ data: { domainId: product.domainId, name, description: `Flink job of the derived product ${product.topicName}` } });
          await tx.derivedProduct.update({ where: { productId }, data: { serviceAccountId: account.id } });
          await auditAsWorker(tx, "serviceAccount.created", "ServiceAccount", account.id, { name, reason: `job of the derived product ${product.topicName}` });
        }
      },
      { timeout: 30_000, maxWait: 15_000 },
    );
    const derived = await db.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { serviceAccountId: true, jobId: true } });
    if (derived.jobId || !derived.serviceAccountId) return;
    const accountId = derived.serviceAccountId;
    await db.$transaction(
      async (tx) => {
        // The account row is committed (the first transaction): ensureCredentials and the ACLs lock it in their own transactions.
        if (!(await deployLock(tx, productId))) return;
        if ((await tx.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { jobId: true } })).jobId) return;
        // Credentials first (issued and sealed for the job: ensureCredentials), then the grants, then the job.
        await ensureCredentials(this.ctx, accountId);
        let sealed = (await db.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { jobSecretSealed: true } })).jobSecretSealed;
        if (!sealed) {
          // Credentials issued before the account was a job's (never sealed): issue new ones, sealed this time.
          await ensureCredentials(this.ctx, accountId, { rotateIssuedBefore: new Date(Date.now() + 1) });
          sealed = (await db.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { jobSecretSealed: true } })).jobSecretSealed;
        }
        if (!sealed) throw new Error("the job account's credentials could not be sealed");
        await reconcilePrincipalAcls(this.ctx, accountId);
        const { spec, account, inputs } = await this.jobSpec(productId);
        const jobId = (await this.runningJobNamed(spec.jobName!)) ?? (await startDerivedJob(spec));
        await tx.derivedProduct.update({ where: { productId }, data: { jobId, jobState: "CREATED", jobError: null } });
        await auditAsWorker(tx, "derivedProduct.jobStarted", "DataProduct", productId, { jobId, principal: `User:${account}`, inputs });
        this.ctx.log.info("derived product's job started", { productId, jobId });
      },
      { timeout: 300_000, maxWait: 15_000 },
    );
  }

  /**
   * What the SQL Gateway is given to start the product's job: the statement,
   * its inputs' tables (the domain must still hold a subscription to each:
   * refused otherwise), the output table of its approved schema, and the job
   * account's sealed login; `overrides` for a resume (a savepoint) or a
   * replay (a startup position and its own group).
   */
  async jobSpec(
    productId: string,
    overrides: Pick<DerivedJobSpec, "restoreFrom" | "startup"> & { groupId?: string; statement?: { text: string; schemaVersion: number } } = {},
  ): Promise<{ spec: DerivedJobSpec; account: string; inputs: string[]; resolved: DerivedInput[]; domainId: string }> {
    const { db, secretsKey } = this.ctx;
    const row = await db.derivedProduct.findUniqueOrThrow({ where: { productId }, select: { statement: true, serviceAccountId: true, jobSecretSealed: true, jobGroupId: true } });
    if (!row.serviceAccountId || !row.jobSecretSealed) throw new Error("the job has no account with sealed credentials yet");
    const account = await db.serviceAccount.findUniqueOrThrow({ where: { id: row.serviceAccountId }, select: { name: true } });
    // A rollback runs an earlier statement version, writing the schema version it was approved with.
    const product = await db.dataProduct.findUniqueOrThrow({
      where: { id: productId },
      select: {
        domainId: true,
        topicName: true,
        schemaVersions: { where: overrides.statement ? { version: overrides.statement.schemaVersion } : { status: "APPROVED" }, orderBy: { version: "desc" }, take: 1, select: { definition: true } },
      },
    });
    const schema = product.schemaVersions[0];
    if (!schema) throw new Error(`${product.topicName} has no approved schema`);
    const statement = overrides.statement?.text ?? row.statement;
    // The domain must still hold a subscription to each input (403 otherwise, recorded as the job's error).
    const inputs = await resolveDerivedInputs(db, product.domainId, statement);
    const spec: DerivedJobSpec = {
      gatewayUrl: this.flink.gatewayUrl,
      connection: { bootstrap: this.flink.bootstrap, ...(this.flink.registryUrl ? { registryUrl: this.flink.registryUrl } : {}), sasl: { username: account.name, password: unsealJobPassword(secretsKey, row.serviceAccountId, row.jobSecretSealed) } },
      statement,
      inputs: inputs.map((i) => ({ topicName: i.topicName, format: i.format, definition: i.definition })),
      outputTopic: product.topicName,
      outputColumns: columnsFromOutputSchema(schema.definition),
      groupId: overrides.groupId ?? row.jobGroupId ?? derivedJobGroupId(account.name),
      transactionalIdPrefix: derivedJobTransactionalPrefix(account.name),
      jobName: derivedJobName(product.topicName),
      ...(overrides.restoreFrom ? { restoreFrom: overrides.restoreFrom } : {}),
      ...(overrides.startup ? { startup: overrides.startup } : {}),
    };
    return { spec, account: account.name, inputs: inputs.map((i) => i.topicName), resolved: inputs, domainId: product.domainId };
  }

  /** A job of this name Flink still runs (or is starting, or restarting): its id. */
  async runningJobNamed(name: string): Promise<string | null> {
    const response = await fetch(`${this.flink.restUrl.replace(/\/+$/, "")}/jobs/overview`, { signal: AbortSignal.timeout(15_000) });
    if (!response.ok) throw new Error(`Flink's REST API answered /jobs/overview with ${response.status}`);
    const { jobs } = (await response.json()) as { jobs: { jid: string; name: string; state: string }[] };
    return jobs.find((j) => j.name === name && ["INITIALIZING", "CREATED", "RUNNING", "RESTARTING"].includes(j.state))?.jid ?? null;
  }
}

const stringOrNull = (v: unknown) => (typeof v === "string" && v.length > 0 ? v : null);

const live = (status: string) => (LIVE_PRODUCT_STATUSES as readonly string[]).includes(status);

/**
 * Why each of these derived products' jobs must stop, for those that must:
 * the product is no longer live, an input is no longer live, or the
 * product's domain holds no granted subscription (primary environment) to an
 * input of another domain — the same rule as derivedJobBindings', so the job
 * stops exactly when its READ grant goes. The reason names the subscription's
 * end as the catalog recorded it (who decided it, and their reason).
 */
export async function stopReasons(db: Db | Tx, productIds: readonly string[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  if (productIds.length === 0) return out;
  const products = await db.dataProduct.findMany({
    where: { id: { in: [...productIds] } },
    select: { id: true, status: true, domainId: true, domain: { select: { slug: true } }, inputs: { select: { input: { select: { id: true, domainId: true, topicName: true, status: true } } } } },
  });
  const foreign = products.flatMap((p) => p.inputs.map((i) => i.input).filter((i) => i.domainId !== p.domainId).map((i) => i.id));
  const subscriptions =
    foreign.length === 0
      ? []
      : await db.subscription.findMany({
          where: { productId: { in: foreign }, environment: null },
          select: { productId: true, consumingDomainId: true, status: true, reason: true, decidedAt: true, updatedAt: true },
          orderBy: { updatedAt: "desc" },
        });
  for (const p of products) {
    if (!live(p.status)) {
      out.set(p.id, `The product was ${p.status.toLowerCase()}.`);
      continue;
    }
    for (const { input } of p.inputs) {
      if (!live(input.status)) {
        out.set(p.id, `Its input ${input.topicName} is ${input.status.toLowerCase()}.`);
        break;
      }
      if (input.domainId === p.domainId) continue;
      const held = subscriptions.filter((s) => s.productId === input.id && s.consumingDomainId === p.domainId);
      if (held.some((s) => (GRANTED_SUBSCRIPTION_STATUSES as readonly string[]).includes(s.status))) continue;
      // The most recent end of access (subscriptions are ordered newest change first).
      const ended = held.find((s) => s.status === "REVOKED");
      out.set(
        p.id,
        ended
          ? `The subscription of ${p.domain.slug} to its input ${input.topicName} was revoked${ended.reason ? `: ${ended.reason}` : "."}`
          : `${p.domain.slug} holds no approved subscription to its input ${input.topicName}.`,
      );
      break;
    }
  }
  return out;
}
