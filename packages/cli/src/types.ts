/*
 * The shapes of the portal's answers the CLI reads (see /api/v1/openapi.json).
 * Written here, not imported: the CLI depends on no package of the platform.
 */

export interface RuleResult {
  ruleId: string;
  severity: "error" | "warn";
  outcome: "pass" | "warn" | "fail";
  message: string;
}

export interface PlanItem {
  source: string | null;
  contractId: string | null;
  action: "create" | "update" | "new-schema-version" | "new-major-version" | "no-change" | "skipped" | "error";
  productId: string | null;
  topic: string | null;
  targetTopic: string | null;
  status: string | null;
  changes: { field: string; from: unknown; to: unknown }[];
  schema: { change: string; mode: string | null; compatible: boolean | null; issues: { path: string; rule: string; message: string }[] };
  policy: { version: number; results: RuleResult[]; blocked: boolean };
  errors: string[];
  notes: string[];
  /** Why a file was skipped: another domain's, which this token may not change. */
  skipped?: string;
  applied?: boolean;
  refusal?: { code: string; message: string; fields?: Record<string, string[]> };
}

export interface ProductSummary {
  id: string;
  name: string;
  topicName: string;
  status: string;
  classification: string;
  majorVersion: number;
  domain: { slug: string; name: string };
}

export interface ProductDetail extends ProductSummary {
  description: string;
  partitions: number;
  retentionMs: number;
  contractSource: string | null;
  provisioning: { step: number; label: string; status: string; lastError: string | null }[];
  schemaVersions: { version: number; format: string; status: string }[];
}
