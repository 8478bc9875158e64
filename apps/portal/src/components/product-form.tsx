"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useCallback, useMemo, useState, type ChangeEvent, type FocusEvent, type FormEvent, type ReactNode } from "react";
import { evaluatePolicy, resultsByField, type PolicyDocument } from "@kappa/catalog/policy";
import { CLASSIFICATIONS, COMPATIBILITY_MODES, LIMITS } from "@kappa/catalog/validation";
import { api, type ApiError } from "@/lib/api-client";
import type { DerivedValidationResult } from "@/lib/api-types";
import { formatDurationMs, humanize } from "@/lib/format";
import {
  changedInput,
  formToInput,
  LOCAL_RETENTION_PRESETS,
  METADATA_FIELDS,
  policyFactsFromValues,
  RETENTION_PRESETS,
  validateRegister,
  validateUpdate,
  type DurationUnit,
  type DurationValue,
  type FieldErrorMap,
  type ProductFormValues,
} from "@/lib/product-form";
import { queryKeys } from "@/lib/query-keys";
import { DerivedStatementEditor, STATEMENT_MAX } from "./derived-statement";
import { PolicyNotes, PolicyResultList, PolicySummary } from "./policy-results";
import { SchemaInference } from "./schema-inference";
import { Button, ButtonLink, Card, ErrorAlert, Field, inputClass } from "./ui";

type Mode = { kind: "create"; domains: { id: string; name: string; slug: string }[]; claimTopic?: string } | { kind: "edit"; productId: string; status: string; initial: ProductFormValues };

/** Confluent Schema Registry's modes, as the product's later schema versions are checked. */
const COMPATIBILITY_HINTS: Record<string, string> = {
  BACKWARD: "Default. Consumers on a new version read data written with the previous one (add optional fields, delete fields).",
  BACKWARD_TRANSITIVE: "As BACKWARD, against every earlier version.",
  FORWARD: "Consumers on the previous version read data written with a new one (add fields, delete optional fields).",
  FORWARD_TRANSITIVE: "As FORWARD, against every earlier version.",
  FULL: "Both: only optional fields are added or deleted.",
  FULL_TRANSITIVE: "As FULL, against every earlier version — the safest for long-lived topics.",
  NONE: "No checks: every change is allowed (breaking changes included).",
};

const CLASSIFICATION_HINTS: Record<string, string> = {
  PUBLIC: "Anyone in the company; owners may auto-approve access.",
  INTERNAL: "Employees with a business need; owner approves access.",
  CONFIDENTIAL: "Sensitive or personal data; every subscription needs explicit approval.",
  RESTRICTED: "Highly sensitive; only governance approves access.",
};

/** The policy's partition and retention bounds for a classification, as hints say them (the form checks them live too). */
function policyBounds(document: PolicyDocument, classification: string): { partitions: string | null; retention: string | null } {
  const c = classification as keyof NonNullable<Extract<PolicyDocument["rules"][number], { check: "partition-bounds" }>["params"]["byClassification"]>;
  const partitionRule = document.rules.find((r) => r.check === "partition-bounds");
  const retentionRule = document.rules.find((r) => r.check === "retention-bounds");
  let partitions: string | null = null;
  let retention: string | null = null;
  if (partitionRule?.check === "partition-bounds") {
    const b = partitionRule.params.byClassification[c] ?? partitionRule.params.default;
    partitions = `${b.min}–${Math.min(b.max, LIMITS.partitionsMax)} for ${humanize(classification)} (policy rule ${partitionRule.id})`;
  }
  if (retentionRule?.check === "retention-bounds") {
    const b = retentionRule.params.byClassification[c] ?? retentionRule.params.default;
    const parts = [`at least ${formatDurationMs(b.minMs)}`];
    if (b.maxMs !== undefined) parts.push(`at most ${formatDurationMs(b.maxMs)}`);
    parts.push(b.allowForever ? "forever allowed" : "never forever");
    retention = `${parts.join(", ")} for ${humanize(classification)} (policy rule ${retentionRule.id})`;
  }
  return { partitions, retention };
}

/** The error key of the field an element belongs to (ids are the field names, except these). */
const ERROR_KEY_OF_ID: Record<string, string> = {
  retention: "retentionMs",
  "retention-amount": "retentionMs",
  "retention-unit": "retentionMs",
  localRetention: "localRetentionMs",
  "localRetention-amount": "localRetentionMs",
  "localRetention-unit": "localRetentionMs",
  schemaDefinition: "schema.definition",
};

const CLASSIFICATION_ORDER: readonly string[] = CLASSIFICATIONS;
/** Stands in for a derived product's schema until Flink derived it (the policy checks and the field rules need one). */
const DERIVED_PLACEHOLDER_SCHEMA = JSON.stringify({ type: "object" });

/** The form's values as a derived product has them: its schema is the one Flink derived (or a placeholder until validated). */
function derivedValues(values: ProductFormValues, validated: DerivedValidationResult | null): ProductFormValues {
  return { ...values, schemaFormat: "JSON_SCHEMA", schemaDefinition: validated ? JSON.stringify(validated.outputSchema) : DERIVED_PLACEHOLDER_SCHEMA };
}

const COMPACT_NOT_TIERED = "Compacted topics are not tiered: compaction rewrites the log to keep the latest record per key, so there are no cold segments to move. Turn off tiered storage, or choose delete.";

/**
 * Register or edit a data product. Validates with the catalog's own zod schema
 * before sending; the server validates again and its field messages land next
 * to the same fields. Nothing is sent while the form has errors.
 */
export function ProductForm({
  mode,
  defaults,
  policy,
  tieredStorage,
  inference,
  flink,
}: {
  mode: Mode;
  defaults: ProductFormValues;
  policy: { version: number; document: PolicyDocument };
  /** What the primary environment's brokers offer (the worker reads it); refusal is set where they have no tiered storage. */
  tieredStorage?: { environment: string; refusal: string | null };
  /** A claimed topic's schema inference: offered on the topic (admins; a claim's owners once an admin approved sampling), or why not. */
  inference?: { topic: string } | { refused: string };
  /** Offered on a new product (not a claim): "Derived product (Flink SQL)", and whether this environment has a Flink SQL Gateway. */
  flink?: { configured: boolean };
}) {
  const router = useRouter();
  const client = useQueryClient();
  const noTiered = tieredStorage?.refusal ?? null;
  // A new product on brokers without tiered storage starts untiered: Kafka would refuse the topic.
  const [values, setValues] = useState<ProductFormValues>(() => (noTiered && mode.kind === "create" ? { ...defaults, tieredStorage: false } : defaults));
  const [errors, setErrors] = useState<FieldErrorMap>({});
  const [formError, setFormError] = useState<string | null>(null);
  const fullyEditable = mode.kind === "create" || mode.status === "DRAFT" || mode.status === "REJECTED";
  const offersDerived = mode.kind === "create" && !mode.claimTopic && flink !== undefined;
  const [kind, setKind] = useState<"stream" | "derived">("stream");
  const derived = offersDerived && kind === "derived";
  const [statement, setStatement] = useState("");
  const [validated, setValidated] = useState<DerivedValidationResult | null>(null);
  // A derived product's schema is Flink's: the policy sees the derived one once validated.
  const checked = derived ? derivedValues(values, validated) : values;
  const locked = (field: string) => !fullyEditable && !METADATA_FIELDS.includes(field);
  // The same evaluator the server runs, on every keystroke: pass / warn / fail with the rule id.
  const evaluation = useMemo(
    () => evaluatePolicy(policy.document, mode.kind === "create" ? "product.register" : "product.update", { product: policyFactsFromValues(checked) }),
    [policy.document, mode.kind, checked],
  );
  const byField = resultsByField(evaluation.results);
  const notes = (field: string, id = field) => (byField[field] ? <PolicyNotes id={`${id}-notes`} results={byField[field]} /> : undefined);

  const save = useMutation<{ id: string }, ApiError, unknown>({
    mutationFn: (body) =>
      mode.kind === "create"
        ? mode.claimTopic
          ? api<{ id: string }>("/api/v1/cluster/topics/claim", { method: "POST", body: Object.assign({}, body, { topic: mode.claimTopic }) })
          : api<{ id: string }>("/api/v1/products", { method: "POST", body })
        : api<{ id: string }>(`/api/v1/products/${mode.productId}`, { method: "PATCH", body }),
    onSuccess: async (product) => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.lists() }),
        client.invalidateQueries({ queryKey: queryKeys.products.detail(product.id) }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
      ]);
      router.push(`/products/${product.id}`);
      router.refresh();
    },
    onError: (error) => {
      setErrors(error.fields);
      setFormError(error.message);
    },
  });

  function set<K extends keyof ProductFormValues>(key: K, value: ProductFormValues[K]) {
    setValues((v) => ({ ...v, [key]: value }));
  }
  const onInferred = useCallback((schemaFormat: "AVRO" | "JSON_SCHEMA", schemaDefinition: string) => setValues((v) => ({ ...v, schemaFormat, schemaDefinition })), []);

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setFormError(null);
    let body: unknown;
    let problems: FieldErrorMap | null;
    if (derived) {
      problems = derivedProblems(values, statement, validated);
      const { schema: _derivedSchema, ...rest } = formToInput(values);
      body = { ...rest, derived: { statement } };
    } else if (mode.kind === "create") {
      problems = validateRegister(values);
      body = formToInput(values);
    } else {
      const patch = changedInput(mode.initial, values);
      if (Object.keys(patch).length === 0) {
        setErrors({});
        setFormError("Nothing has changed.");
        return;
      }
      problems = validateUpdate(patch);
      body = patch;
    }
    if (mode.kind === "create" && noTiered && values.tieredStorage) problems = { ...problems, tieredStorage: [noTiered] };
    if (!problems && mode.kind === "create" && evaluation.blocked) {
      setErrors({});
      setFormError(`The policy refuses this product: ${evaluation.results.filter((r) => r.outcome === "fail").map((r) => r.ruleId).join(", ")}. Nothing was saved.`);
      requestAnimationFrame(() => document.querySelector<HTMLElement>("[data-outcome=fail]")?.scrollIntoView({ block: "center" }));
      return;
    }
    if (problems) {
      setErrors(problems);
      setFormError("Some fields need attention; nothing was saved.");
      // Move focus to the first invalid field so keyboard users land on it.
      requestAnimationFrame(() => document.querySelector<HTMLElement>("[aria-invalid=true]")?.focus());
      return;
    }
    setErrors({});
    save.mutate(body);
  }

  async function onUpload(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const text = await file.text();
    set("schemaDefinition", text);
    if (/\.avsc$/i.test(file.name)) set("schemaFormat", "AVRO");
  }

  // Explained on the spot, before any submit: the server refuses the combination too.
  const compactTiered = values.cleanupPolicy === "compact" && values.tieredStorage;
  const e = (key: string) => (key === "tieredStorage" && compactTiered ? [COMPACT_NOT_TIERED] : key === "tieredStorage" && noTiered && values.tieredStorage ? [noTiered] : errors[key]);
  const bounds = policyBounds(policy.document, values.classification);

  /** Validation of the field the user just left (create: the registration schema; edit: the patch). */
  function onFieldBlur(event: FocusEvent<HTMLFormElement>) {
    const target = event.target as HTMLElement;
    const id = target.id;
    if (!id) return;
    const key = ERROR_KEY_OF_ID[id] ?? id;
    let problems: FieldErrorMap | null;
    if (derived) problems = derivedProblems(values, statement, validated);
    else if (mode.kind === "create") problems = validateRegister(values);
    else {
      const patch = changedInput(mode.initial, values);
      problems = Object.keys(patch).length === 0 ? null : validateUpdate(patch);
    }
    setErrors((prev) => {
      const next = { ...prev };
      const found = problems?.[key] ?? (key === "tags" || key === "keyFields" ? firstIndexed(problems ?? {}, key) : undefined);
      if (found) next[key] = found;
      else delete next[key];
      return next;
    });
  }
  const lockHint = "Fixed once the product is approved; publish a new major version to change it.";

  return (
    <form onSubmit={onSubmit} onBlur={onFieldBlur} noValidate className="space-y-6" aria-describedby="form-status">
      <div id="form-status">
        <ErrorAlert message={formError}>
          {errors._ && <p>{errors._.join(" ")}</p>}
        </ErrorAlert>
      </div>

      {offersDerived && (
        <Card title="Kind of product">
          <fieldset>
            <legend className="sr-only">Kind of product</legend>
            <div className="grid gap-3 sm:grid-cols-2">
              {(
                [
                  ["stream", "Stream product", "Your producers write it; you give its schema."],
                  ["derived", "Derived product (Flink SQL)", "Computed in the stream by Apache Flink from products your domain subscribes to; Flink derives its schema."],
                ] as const
              ).map(([value, label, hint]) => (
                <label key={value} className="flex cursor-pointer items-start gap-2 rounded-md p-3 text-sm ring-1 ring-slate-200 has-[:checked]:ring-2 has-[:checked]:ring-indigo-600">
                  <input type="radio" name="productKind" value={value} checked={kind === value} onChange={() => setKind(value)} className="mt-0.5 h-4 w-4" aria-describedby={`productKind-${value}-hint`} />
                  <span>
                    <span className="font-medium text-slate-900">{label}</span>
                    <span id={`productKind-${value}-hint`} className="mt-0.5 block text-xs text-slate-600">{hint}</span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
        </Card>
      )}

      <Card title="Basics">
        <div className="grid gap-4 sm:grid-cols-2">
          {mode.kind === "create" && (
            <Field id="domainId" label="Domain" errors={e("domainId")} hint="Only domains you own.">
              {(a) => (
                <select {...a} value={values.domainId} onChange={(ev) => set("domainId", ev.target.value)} className={inputClass}>
                  {mode.domains.map((d) => (
                    <option key={d.id} value={d.id}>{d.name} ({d.slug})</option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field id="name" label="Name" errors={e("name")} notes={notes("name")} hint={locked("name") ? lockHint : "Becomes part of the topic name."}>
            {(a) => <input {...a} value={values.name} onChange={(ev) => set("name", ev.target.value)} disabled={locked("name")} maxLength={LIMITS.nameMax + 20} className={inputClass} />}
          </Field>
          <Field id="description" label="Description" errors={e("description")} notes={notes("description")} className="sm:col-span-2" hint="What is in the stream, when records are produced, keys and ordering.">
            {(a) => <textarea {...a} rows={4} value={values.description} onChange={(ev) => set("description", ev.target.value)} className={inputClass} />}
          </Field>
          <Field id="classification" label="Classification" errors={e("classification")} notes={notes("classification")} hint={locked("classification") ? lockHint : CLASSIFICATION_HINTS[values.classification]}>
            {(a) => (
              <select {...a} value={values.classification} onChange={(ev) => set("classification", ev.target.value)} disabled={locked("classification")} className={inputClass}>
                {CLASSIFICATIONS.map((c) => (
                  <option key={c} value={c}>{humanize(c)}</option>
                ))}
              </select>
            )}
          </Field>
          <Field id="tags" label="Tags" errors={e("tags") ?? firstIndexed(errors, "tags")} hint="Comma-separated, lower-case, e.g. orders, events">
            {(a) => <input {...a} value={values.tags} onChange={(ev) => set("tags", ev.target.value)} className={inputClass} />}
          </Field>
          <Field id="contactEmail" label="Contact e-mail" errors={e("contactEmail")} notes={notes("contactEmail")}>
            {(a) => <input {...a} type="email" value={values.contactEmail} onChange={(ev) => set("contactEmail", ev.target.value)} className={inputClass} />}
          </Field>
        </div>
      </Card>

      <Card title="Service level">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="freshnessSeconds" label="Freshness target (seconds)" errors={e("freshnessSeconds")} hint="How stale the newest record may be.">
            {(a) => <input {...a} inputMode="numeric" value={values.freshnessSeconds} onChange={(ev) => set("freshnessSeconds", ev.target.value)} className={inputClass} />}
          </Field>
          <Field id="availabilityPct" label="Availability target (%)" errors={e("availabilityPct")} hint={`Between ${LIMITS.availabilityMin} and 100.`}>
            {(a) => <input {...a} inputMode="decimal" value={values.availabilityPct} onChange={(ev) => set("availabilityPct", ev.target.value)} className={inputClass} />}
          </Field>
        </div>
      </Card>

      <Card title="Topic">
        <div className="grid gap-4 sm:grid-cols-2">
          <Field id="partitions" label="Partitions" errors={e("partitions")} notes={notes("partitions")} hint={locked("partitions") ? lockHint : `${bounds.partitions ?? `1–${LIMITS.partitionsMax}`}; the unit of consumer parallelism.`}>
            {(a) => <input {...a} inputMode="numeric" value={values.partitions} onChange={(ev) => set("partitions", ev.target.value)} disabled={locked("partitions")} className={inputClass} />}
          </Field>
          <Field id="cleanupPolicy" label="Cleanup policy" errors={e("cleanupPolicy")} hint={locked("cleanupPolicy") ? lockHint : "compact keeps the latest record per key (latest-state products)."}>
            {(a) => (
              <select {...a} value={values.cleanupPolicy} onChange={(ev) => set("cleanupPolicy", ev.target.value)} disabled={locked("cleanupPolicy")} className={inputClass}>
                <option value="delete">delete — keep records for the retention period</option>
                <option value="compact">compact — keep the latest record per key</option>
              </select>
            )}
          </Field>
          <Field id="keyFields" label="Key fields" errors={e("keyFields") ?? firstIndexed(errors, "keyFields")} notes={notes("keyFields")} hint={locked("keyFields") ? lockHint : "Comma-separated top-level schema fields that form the record key (compacted products need one)."}>
            {(a) => <input {...a} value={values.keyFields} onChange={(ev) => set("keyFields", ev.target.value)} disabled={locked("keyFields")} className={inputClass} />}
          </Field>
          <DurationField id="retention" label="Retention" value={values.retention} presets={RETENTION_PRESETS} disabled={locked("retentionMs")} errors={e("retentionMs")} notes={notes("retentionMs", "retention")} onChange={(v) => set("retention", v)} hint={locked("retentionMs") ? lockHint : `Forever by default: every consumer can replay from the start.${bounds.retention ? ` Policy: ${bounds.retention}.` : ""}`} />
          <fieldset className="space-y-3">
            <legend className="text-sm font-medium text-slate-800">Tiered storage</legend>
            <label className="flex items-center gap-2 text-sm">
              <input
                type="checkbox"
                checked={values.tieredStorage}
                onChange={(ev) => set("tieredStorage", ev.target.checked)}
                disabled={locked("tieredStorage") || (noTiered !== null && !values.tieredStorage)}
                aria-describedby={e("tieredStorage") ? "tieredStorage-error" : noTiered ? "tieredStorage-unavailable" : undefined}
                aria-invalid={e("tieredStorage") ? true : undefined}
                className="h-4 w-4 rounded border-slate-300"
              />
              Move cold segments to object storage
            </label>
            {e("tieredStorage") && <p id="tieredStorage-error" className="text-sm text-rose-700" data-field-error>{e("tieredStorage")?.join(" ")}</p>}
            {noTiered && !values.tieredStorage && (
              <p id="tieredStorage-unavailable" className="text-sm text-slate-600">
                Not offered: the {tieredStorage?.environment} environment&apos;s Kafka brokers run without tiered storage, so every record stays on broker disks for the whole retention.
              </p>
            )}
            {notes("tieredStorage")}
            {values.tieredStorage && (
              <DurationField id="localRetention" label="Local hot window" value={values.localRetention} presets={LOCAL_RETENTION_PRESETS} disabled={locked("localRetentionMs")} errors={e("localRetentionMs")} onChange={(v) => set("localRetention", v)} hint={locked("localRetentionMs") ? lockHint : "How much stays on broker disks; older data is served from object storage."} />
            )}
          </fieldset>
        </div>
      </Card>

      {derived && (
        <Card title="Flink SQL">
          <DerivedStatementEditor
            domainId={values.domainId}
            statement={statement}
            onChange={(next) => {
              setStatement(next);
              setValidated(null);
            }}
            gatewayConfigured={flink?.configured ?? false}
            errors={errors.statement ?? errors["derived.statement"] ?? errors.derived}
            onValidated={setValidated}
          />
          {validated && CLASSIFICATION_ORDER.indexOf(values.classification) < CLASSIFICATION_ORDER.indexOf(validated.minimumClassification) && (
            <p className="mt-3 text-sm text-rose-700" data-testid="derived-classification">
              Classify it {humanize(validated.minimumClassification)} or higher: a derived product is at least as sensitive as its most sensitive input.
            </p>
          )}
        </Card>
      )}

      <Card title={derived ? "Schema evolution" : "Schema"}>
        <div className="space-y-4">
          {!derived && <fieldset>
            <legend className="text-sm font-medium text-slate-800">Format</legend>
            <div className="mt-1 flex gap-4">
              {[["AVRO", "Avro"], ["JSON_SCHEMA", "JSON Schema"]].map(([v, l]) => (
                <label key={v} className="flex items-center gap-2 text-sm">
                  <input type="radio" name="schemaFormat" value={v} checked={values.schemaFormat === v} disabled={locked("schema")} onChange={() => set("schemaFormat", v ?? "AVRO")} className="h-4 w-4" />
                  {l}
                </label>
              ))}
            </div>
            {e("schema.format") && <p className="mt-1 text-sm text-rose-700" data-field-error>{e("schema.format")?.join(" ")}</p>}
          </fieldset>}
          <Field
            id="compatibilityMode"
            label="Compatibility mode"
            errors={e("compatibilityMode")}
            hint={locked("compatibilityMode") ? "Changed only through a reviewed request with a reason." : COMPATIBILITY_HINTS[values.compatibilityMode]}
          >
            {(a) => (
              <select {...a} value={values.compatibilityMode} onChange={(ev) => set("compatibilityMode", ev.target.value)} disabled={locked("compatibilityMode")} className={inputClass}>
                {COMPATIBILITY_MODES.map((m) => (
                  <option key={m} value={m}>{m}</option>
                ))}
              </select>
            )}
          </Field>
          {!derived && !locked("schema") && inference && "topic" in inference && <SchemaInference topic={inference.topic} onInferred={onInferred} />}
          {!derived && !locked("schema") && inference && "refused" in inference && (
            <p className="rounded-md bg-slate-50 p-3 text-xs text-slate-700 ring-1 ring-slate-200" data-testid="schema-inference-refused">
              {inference.refused}
            </p>
          )}
          {!derived && <Field id="schemaDefinition" label="Definition" errors={e("schema.definition") ?? e("schema")} notes={notes("schema.definition", "schemaDefinition")} hint={locked("schema") ? <>The approved schema. New versions are proposed and reviewed on the <a className="text-indigo-700 underline" href={mode.kind === "edit" ? `/products/${mode.productId}/schema` : "#"}>schema versions page</a>.</> : inference && "topic" in inference ? "Infer it from sample records above, paste it, or upload a .avsc / .json file." : "Paste the schema, or upload a .avsc / .json file."}>
            {(a) => <textarea {...a} rows={12} spellCheck={false} readOnly={locked("schema")} value={values.schemaDefinition} onChange={(ev) => set("schemaDefinition", ev.target.value)} className={`${inputClass} font-mono text-xs`} />}
          </Field>}
          {!derived && !locked("schema") && <div>
            <label htmlFor="schemaFile" className="text-sm font-medium text-slate-800">Upload a schema file</label>
            <input id="schemaFile" type="file" accept=".avsc,.json,application/json" onChange={(ev) => void onUpload(ev)} className="mt-1 block text-sm file:mr-3 file:rounded-md file:border-0 file:bg-slate-100 file:px-3 file:py-1.5 file:text-sm file:font-medium hover:file:bg-slate-200" />
          </div>}
        </div>
      </Card>

      <Card title={`Policy checks (policy v${policy.version})`} actions={<PolicySummary results={evaluation.results} />}>
        <div role="status" aria-live="polite" aria-atomic="false" data-testid="policy-checks">
          <PolicyResultList results={evaluation.results} />
        </div>
      </Card>

      <div className="flex flex-wrap gap-2">
        <Button type="submit" disabled={save.isPending}>
          {save.isPending ? "Saving…" : mode.kind === "create" ? (mode.claimTopic ? "Claim topic" : "Register product") : "Save changes"}
        </Button>
        <ButtonLink variant="secondary" href={mode.kind === "create" ? "/" : `/products/${mode.productId}`}>
          Cancel
        </ButtonLink>
      </div>
    </form>
  );
}

/** A derived product's field problems: the product's own fields (its schema is Flink's), the statement, and the classification its inputs require. */
function derivedProblems(values: ProductFormValues, statement: string, validated: DerivedValidationResult | null): FieldErrorMap | null {
  const problems: FieldErrorMap = { ...(validateRegister(derivedValues(values, validated)) ?? {}) };
  for (const key of Object.keys(problems)) if (key === "schema" || key.startsWith("schema.")) delete problems[key];
  if (statement.trim() === "") problems.statement = ["Write the Flink SQL statement the product is computed by."];
  else if (statement.length > STATEMENT_MAX) problems.statement = [`The statement may be at most ${STATEMENT_MAX} characters.`];
  if (validated && CLASSIFICATION_ORDER.indexOf(values.classification) < CLASSIFICATION_ORDER.indexOf(validated.minimumClassification)) {
    problems.classification = [`A derived product is classified at least as its most sensitive input: ${humanize(validated.minimumClassification)} or higher.`];
  }
  return Object.keys(problems).length > 0 ? problems : null;
}

/** zod reports array items as "tags.2"; show the first such message on the field. */
function firstIndexed(errors: FieldErrorMap, prefix: string): string[] | undefined {
  const key = Object.keys(errors).find((k) => k.startsWith(`${prefix}.`));
  return key ? errors[key] : undefined;
}

function DurationField({
  id,
  label,
  value,
  presets,
  onChange,
  errors,
  disabled,
  hint,
  notes,
}: {
  id: string;
  label: string;
  notes?: ReactNode;
  value: DurationValue;
  presets: { ms: number; label: string }[];
  onChange: (v: DurationValue) => void;
  errors?: string[];
  disabled?: boolean;
  hint?: ReactNode;
}) {
  return (
    <Field id={id} label={label} errors={errors} hint={hint} notes={notes}>
      {(a) => (
        <div className="space-y-2">
          <select {...a} value={value.choice} disabled={disabled} onChange={(ev) => onChange({ ...value, choice: ev.target.value })} className={inputClass}>
            {presets.map((p) => (
              <option key={p.ms} value={String(p.ms)}>{p.label}</option>
            ))}
            <option value="custom">Custom…</option>
          </select>
          {value.choice === "custom" && (
            <div className="flex gap-2">
              <label htmlFor={`${id}-amount`} className="sr-only">{label} amount</label>
              <input id={`${id}-amount`} inputMode="decimal" value={value.amount} disabled={disabled} onChange={(ev) => onChange({ ...value, amount: ev.target.value })} className={inputClass} aria-invalid={a["aria-invalid"]} />
              <label htmlFor={`${id}-unit`} className="sr-only">{label} unit</label>
              <select id={`${id}-unit`} value={value.unit} disabled={disabled} onChange={(ev) => onChange({ ...value, unit: ev.target.value as DurationUnit })} className={`${inputClass} w-32`}>
                <option value="minutes">minutes</option>
                <option value="hours">hours</option>
                <option value="days">days</option>
              </select>
            </div>
          )}
        </div>
      )}
    </Field>
  );
}

