import "server-only";
import type { FlinkSettings } from "@kappa/catalog";
import { env } from "@/env";

/** The Flink SQL Gateway the portal plans derived products' statements on (read-only EXPLAIN), or null without FLINK_SQL_GATEWAY_URL. */
export function flinkSettings(): FlinkSettings | null {
  const e = env();
  return e.FLINK_SQL_GATEWAY_URL ? { gatewayUrl: e.FLINK_SQL_GATEWAY_URL, bootstrap: e.KAFKA_BOOTSTRAP_DISPLAY } : null;
}
