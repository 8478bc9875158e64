// The suite's shared engines: one real PostgreSQL (the catalog's setup, provides
// pgAdminUrl) and one 3-node Apache Kafka cluster (packages/engines, provides
// apacheKafka), started side by side.
import type { TestProject } from "vitest/node";
import setupPostgres from "@kappa/catalog/testing/global-setup";
import { setupSharedApacheKafka } from "@kappa/engines/testing";

export default async function setup(project: TestProject) {
  const [postgres, kafka] = await Promise.allSettled([setupPostgres(project), setupSharedApacheKafka(project)]);
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
