import type { Db, Tx } from "../db.ts";
import { ConflictError, ValidationError } from "../errors.ts";
import { primaryEnvironment } from "./clusters.ts";

/*
 * Subscriptions are per environment. A subscription's `environment` is NULL
 * for the primary environment (the worker's own cluster, whose name can
 * change with KAFKA_ENVIRONMENT) and the registered cluster's name for any
 * other. Access on another environment needs the product to be live there:
 * its promotion (ProductDeployment) ACTIVE.
 */

/** The stored value of a requested environment: NULL for the primary (absent or named), else the registered name. */
export async function subscriptionEnvironment(tx: Tx, productId: string, productName: string, requested: string | undefined): Promise<string | null> {
  if (requested === undefined) return null;
  const primary = await primaryEnvironment(tx);
  if (requested === primary) return null;
  const cluster = await tx.cluster.findUnique({ where: { environment: requested }, select: { primary: true } });
  if (!cluster) throw new ValidationError("Some fields need attention.", { environment: [`There is no environment named ${requested}.`] });
  await assertLiveInEnvironment(tx, productId, productName, requested);
  return requested;
}

/** Refuses access on an environment where the product's deployment is not ACTIVE (a reviewed, provisioned promotion). */
export async function assertLiveInEnvironment(tx: Tx, productId: string, productName: string, environment: string): Promise<void> {
  const deployment = await tx.productDeployment.findUnique({ where: { productId_environment: { productId, environment } }, select: { status: true } });
  if (deployment?.status === "ACTIVE") return;
  const state = deployment ? `its promotion there is ${deployment.status}` : "it has not been promoted there";
  throw new ConflictError(`"${productName}" is not live in ${environment} (${state}); subscribe where it is live, or ask its owners to promote it.`, "NOT_LIVE_IN_ENVIRONMENT");
}

/** The environment a subscription row names, for the API and pages. */
export function environmentOf(subscription: { environment: string | null }, primary: string): string {
  return subscription.environment ?? primary;
}

/** Where a product is live: the primary always (while the product is), and every environment whose deployment is ACTIVE. */
export async function liveEnvironments(db: Db | Tx, productId: string): Promise<{ primary: string; environments: string[] }> {
  const [primary, deployments] = await Promise.all([
    primaryEnvironment(db),
    db.productDeployment.findMany({ where: { productId, status: "ACTIVE" }, select: { environment: true }, orderBy: { environment: "asc" } }),
  ]);
  return { primary, environments: [primary, ...deployments.map((d) => d.environment)] };
}
