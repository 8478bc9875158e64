// The suite's shared engines: one real PostgreSQL (the catalog's setup, provides
// pgAdminUrl) and one 3-node Apache Kafka cluster (packages/engines, provides
// apacheKafka), started side by side. KAPPA_WORKER_APACHE_KAFKA=off leaves the
// cluster out for a quick local run of files that do not need it; the tests
// that run on Apache Kafka then fail, saying so (never skipped).
import type { TestProject } from "vitest/node";
import setupPostgres from "@kappa/catalog/testing/global-setup";
import { setupSharedApacheKafka } from "@kappa/engines/testing";

export default async function setup(project: TestProject) {
  const withKafka = process.env.KAPPA_WORKER_APACHE_KAFKA !== "off";
  const [postgres, kafka] = await Promise.allSettled([setupPostgres(project), withKafka ? setupSharedApacheKafka(project) : Promise.resolve(async () => {})]);
  const teardowns = [postgres, kafka].flatMap((r) => (r.status === "fulfilled" ? [r.value] : []));
  const teardown = async () => {
    for (const stop of teardowns) await stop();
  };
  const failed = [postgres, kafka].find((r) => r.status === "rejected");
  if (failed) {
    await teardown();
    throw failed.reason;
  }
  return teardown;
}
