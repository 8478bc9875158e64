"use client";

import { useState, type FormEvent } from "react";
import { keyText, RecordValue } from "@/components/record-value";
import { Button, Card, ErrorAlert, Field, inputClass, Notice } from "@/components/ui";
import type { ApiError } from "@/lib/api-client";
import type { ProductDetail, RuleTestResult } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { useSetQualityRules, useTestQualityRules, type QualityRuleBody } from "@/lib/mutations";

/*
 * The data-quality rules editor (issue 29), for the owners of the product's
 * domain: the rules in order, each added, edited or removed here, then
 * submitted with a reason — a draft takes them at once, a live product's
 * change waits for governance (four eyes). "Test" evaluates the rules as
 * edited, unsaved, against the newest records of the topic and shows per rule
 * how many records pass, fail and err, and the failing records as the message
 * browser shows them to this viewer. The server checks everything (who may,
 * CEL, fields, the policy's limits); its messages land on the rule's field.
 */

const KINDS = [
  ["CEL", "CEL — the whole record (message)"],
  ["CEL_FIELD", "CEL_FIELD — every field with one of the tags (value)"],
] as const;
const MODES = [
  ["WRITE", "On write"],
  ["READ", "On read"],
  ["WRITEREAD", "On write and read"],
] as const;
const ACTIONS = [
  ["ERROR", "ERROR — refuse the record"],
  ["DLQ", "DLQ — send it to the dead-letter topic"],
  ["NONE", "NONE — let it pass, counted"],
] as const;
/** How a rule's mode and failure action read in a sentence (the review page lists rules with them). */
export const ruleModeLabel = (mode: string): string => MODES.find(([v]) => v === mode)?.[1] ?? mode;
export const ruleActionLabel = (action: string): string => ACTIONS.find(([v]) => v === action)?.[1] ?? action;
/** Statuses whose topic holds records to test against (the server says the same). */
const TESTABLE = ["APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED"];
const DRAFT_STATUSES = ["DRAFT", "REJECTED"];

/** A rule as the form holds it: the API's fields, with the tags as typed. */
interface EditedRule extends Omit<QualityRuleBody, "tags"> {
  /** Stable while the list changes (React keys, element ids). */
  key: number;
  /** Comma-separated as typed. */
  tags: string;
}

let nextKey = 1;
const edited = (r: Omit<QualityRuleBody, "tags"> & { tags: readonly string[] }): EditedRule => ({ key: nextKey++, name: r.name, description: r.description, kind: r.kind, expression: r.expression, mode: r.mode, onFailure: r.onFailure, tags: r.tags.join(", ") });
const body = (r: EditedRule): QualityRuleBody => ({
  name: r.name.trim(),
  description: r.description,
  kind: r.kind,
  expression: r.expression,
  mode: r.mode,
  onFailure: r.onFailure,
  tags: r.tags
    .split(",")
    .map((t) => t.trim())
    .filter(Boolean),
});

export function RulesEditor({ product }: { product: ProductDetail }) {
  const [rules, setRules] = useState<EditedRule[]>(() => product.qualityRules.map(edited));
  const [reason, setReason] = useState("");
  // Issue 29: field-level encryption of the PII fields, changed in the same reviewed change as the rules.
  const [encryptPii, setEncryptPii] = useState(product.encryptPii);
  const save = useSetQualityRules(product.id);
  const test = useTestQualityRules(product.id);
  // The field messages of the last refusal, test or submission: they stay on the rule they are about.
  const [refusal, setRefusal] = useState<ApiError | null>(null);
  const fields = refusal?.fields ?? {};
  const live = !DRAFT_STATUSES.includes(product.status);
  const pending = product.changeRequests.find((c) => c.kind === "QUALITY_RULES" && c.status === "REQUESTED");
  const locked = product.status === "IN_REVIEW" || product.status === "RETIRED";
  const testable = TESTABLE.includes(product.status);

  const update = (key: number, patch: Partial<EditedRule>) => setRules((now) => now.map((r) => (r.key === key ? { ...r, ...patch } : r)));
  const add = () => {
    const rule = edited({ name: "", description: "", kind: "CEL", expression: "", mode: "WRITE", onFailure: "NONE", tags: [] });
    setRules((now) => [...now, rule]);
    // Keyboard users land in the new rule.
    requestAnimationFrame(() => document.getElementById(`rule-${rule.key}-name`)?.focus());
  };
  const remove = (key: number) => {
    setRules((now) => now.filter((r) => r.key !== key));
    setRefusal(null);
  };
  const move = (index: number, by: -1 | 1) =>
    setRules((now) => {
      const next = [...now];
      const [r] = next.splice(index, 1);
      if (r) next.splice(index + by, 0, r);
      return next;
    });

  function runTest() {
    setRefusal(null);
    save.reset();
    test.mutate({ rules: rules.map(body) }, { onError: (e) => setRefusal(e) });
  }
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setRefusal(null);
    test.reset();
    save.mutate(
      { rules: rules.map(body), ...(encryptPii !== product.encryptPii ? { encryptPii } : {}), ...(reason.trim() ? { reason } : {}) },
      {
        onError: (e) => setRefusal(e),
        onSuccess: () => setReason(""),
      },
    );
  }

  const ruleErrors = (i: number, field: string) => fields[`rules.${i}.${field}`];
  // A message no field shows (the whole list, the reason shows its own): said above the buttons.
  const shownElsewhere = Object.keys(fields).some((k) => /^rules\.\d+\./.test(k) || k === "reason" || k === "encryptPii");
  return (
    <Card title="Data-quality rules" actions={<span className="text-xs text-slate-500">Owners · checked on the server</span>}>
      <form onSubmit={submit} className="space-y-4" aria-label="Edit the data-quality rules" data-testid="rules-editor">
        <p className="text-sm text-slate-600">
          CEL conditions clients run in their serializers (<code>message.totalCents &gt;= 0</code>); a record fails a rule only when it is false. Rules run in this order.
        </p>
        {pending && (
          <Notice>
            A change of these rules waits for review (“{pending.reason}”): the rules below are those in force until governance decides.
          </Notice>
        )}
        {locked && <p className="text-sm text-slate-600">{product.status === "IN_REVIEW" ? "The product is in review: its rules change after the decision." : "The product is retired."}</p>}
        {rules.length === 0 && <p className="text-sm text-slate-600">No rules: every record passes.</p>}
        <ol className="space-y-4">
          {rules.map((r, i) => (
            <li key={r.key} data-testid="rule-row">
              <fieldset className="space-y-3 rounded-md border border-slate-200 p-3">
                <legend className="px-1 text-sm font-medium text-slate-800">
                  Rule {i + 1}
                  {r.name ? `: ${r.name}` : ""}
                </legend>
                <div className="grid gap-3 sm:grid-cols-2">
                  <Field id={`rule-${r.key}-name`} label="Name" hint="Lower-case words joined by '-', e.g. non-negative-total." errors={ruleErrors(i, "name")}>
                    {(p) => <input {...p} className={inputClass} value={r.name} onChange={(e) => update(r.key, { name: e.target.value })} disabled={locked} autoComplete="off" spellCheck={false} />}
                  </Field>
                  <Field id={`rule-${r.key}-description`} label="Description" errors={ruleErrors(i, "description")}>
                    {(p) => <input {...p} className={inputClass} value={r.description} onChange={(e) => update(r.key, { description: e.target.value })} disabled={locked} />}
                  </Field>
                </div>
                <Field id={`rule-${r.key}-expression`} label="Expression (CEL)" hint={r.kind === "CEL" ? "Reads message (the record); 'guard;expression' applies the rule only where the guard holds." : "Reads value, name, fullName, typeName, tags and message, once per tagged field."} errors={ruleErrors(i, "expression")}>
                  {(p) => <textarea {...p} rows={2} className={`${inputClass} font-mono`} value={r.expression} onChange={(e) => update(r.key, { expression: e.target.value })} disabled={locked} spellCheck={false} />}
                </Field>
                <div className="grid gap-3 sm:grid-cols-2 lg:grid-cols-4">
                  <Field id={`rule-${r.key}-kind`} label="Kind" errors={ruleErrors(i, "kind")}>
                    {(p) => (
                      <select {...p} className={inputClass} value={r.kind} onChange={(e) => update(r.key, { kind: e.target.value })} disabled={locked}>
                        {KINDS.map(([v, l]) => (
                          <option key={v} value={v}>{l}</option>
                        ))}
                      </select>
                    )}
                  </Field>
                  <Field id={`rule-${r.key}-mode`} label="Mode" errors={ruleErrors(i, "mode")}>
                    {(p) => (
                      <select {...p} className={inputClass} value={r.mode} onChange={(e) => update(r.key, { mode: e.target.value })} disabled={locked}>
                        {MODES.map(([v, l]) => (
                          <option key={v} value={v}>{l}</option>
                        ))}
                      </select>
                    )}
                  </Field>
                  <Field id={`rule-${r.key}-onFailure`} label="On failure" errors={ruleErrors(i, "onFailure")}>
                    {(p) => (
                      <select {...p} className={inputClass} value={r.onFailure} onChange={(e) => update(r.key, { onFailure: e.target.value })} disabled={locked}>
                        {ACTIONS.map(([v, l]) => (
                          <option key={v} value={v}>{l}</option>
                        ))}
                      </select>
                    )}
                  </Field>
                  <Field id={`rule-${r.key}-tags`} label="Tags" hint="CEL_FIELD only, comma-separated, e.g. PII." errors={ruleErrors(i, "tags") ?? Object.entries(fields).find(([k]) => k.startsWith(`rules.${i}.tags.`))?.[1]}>
                    {(p) => <input {...p} className={inputClass} value={r.tags} onChange={(e) => update(r.key, { tags: e.target.value })} disabled={locked} autoComplete="off" spellCheck={false} />}
                  </Field>
                </div>
                {!locked && (
                  <div className="flex flex-wrap gap-2">
                    <Button type="button" variant="secondary" onClick={() => move(i, -1)} disabled={i === 0} aria-label={`Move rule ${i + 1} up`}>Up</Button>
                    <Button type="button" variant="secondary" onClick={() => move(i, 1)} disabled={i === rules.length - 1} aria-label={`Move rule ${i + 1} down`}>Down</Button>
                    <Button type="button" variant="secondary" onClick={() => remove(r.key)} aria-label={`Remove rule ${i + 1}${r.name ? ` (${r.name})` : ""}`}>Remove</Button>
                  </div>
                )}
              </fieldset>
            </li>
          ))}
        </ol>
        {!locked && (
          <>
            <Button type="button" variant="secondary" onClick={add}>Add a rule</Button>
            {fields.rules && <ErrorAlert message={fields.rules.join(" ")} />}
            <div className="space-y-1">
              <label className="flex items-center gap-2 text-sm">
                <input
                  type="checkbox"
                  checked={encryptPii}
                  onChange={(ev) => setEncryptPii(ev.target.checked)}
                  aria-describedby={fields.encryptPii ? "encryptPii-hint encryptPii-error" : "encryptPii-hint"}
                  aria-invalid={fields.encryptPii ? true : undefined}
                  className="h-4 w-4 rounded border-slate-300"
                />
                Encrypt the fields classified as PII
              </label>
              <p id="encryptPii-hint" className="text-xs text-slate-500">
                Producers&apos; serializers encrypt them with keys from the registry; only the producer account and subscriptions approved for PII can decrypt. Retiring the product destroys the keys.
              </p>
              {fields.encryptPii && <p id="encryptPii-error" className="text-sm text-rose-700" data-field-error>{fields.encryptPii.join(" ")}</p>}
            </div>
            {live && (
              <Field id="rules-reason" label="Why do the rules change?" hint="Governance reads it with the change; the rules in force stay until a reviewer other than you approves." errors={fields.reason}>
                {(p) => <input {...p} className={inputClass} value={reason} onChange={(e) => setReason(e.target.value)} placeholder="e.g. refuse negative totals at the producer" />}
              </Field>
            )}
            {refusal && !shownElsewhere && !fields.rules && <ErrorAlert message={refusal.message} />}
            {refusal && shownElsewhere && <ErrorAlert message="Some rules need attention: see the messages at their fields." />}
            <div className="flex flex-wrap items-center gap-2">
              {testable && (
                <Button type="button" variant="secondary" onClick={runTest} disabled={test.isPending || rules.length === 0} data-testid="rules-test">
                  {test.isPending ? "Testing…" : "Test against the newest records"}
                </Button>
              )}
              <Button type="submit" disabled={save.isPending || Boolean(pending)}>{live ? "Submit for review" : "Save rules"}</Button>
            </div>
            {save.isSuccess && (
              <Notice>
                {save.data.applied ? "Saved: the draft carries these rules; they are reviewed with the product." : "Submitted: governance reviews the change (four eyes); the rules in force stay until it is approved."}
              </Notice>
            )}
          </>
        )}
      </form>
      {test.isSuccess && <RuleTestResults result={test.data} />}
    </Card>
  );
}

function RuleTestResults({ result }: { result: RuleTestResult }) {
  return (
    <section className="mt-6 space-y-3" aria-labelledby="rule-test-heading" data-testid="rule-test-result" role="status" aria-live="polite">
      <h3 id="rule-test-heading" className="text-sm font-semibold text-slate-900">Test against {result.topic}</h3>
      {result.sampled > 0 && (
        <p className="text-sm text-slate-700" data-testid="rule-test-summary">
          {result.evaluated} of the newest {result.sampled} records evaluated; <strong>{result.failingRecords}</strong> fail at least one rule.
        </p>
      )}
      {result.note && <p className="text-sm text-slate-600">{result.note}</p>}
      {result.sampled > 0 && result.rules.length > 0 && (
        <div className="overflow-x-auto">
          <table className="min-w-full text-left text-sm">
            <caption className="sr-only">Records per rule that pass, fail and err</caption>
            <thead className="text-xs uppercase text-slate-500">
              <tr>
                <th scope="col" className="py-1 pr-4">Rule</th>
                <th scope="col" className="py-1 pr-4">Passed</th>
                <th scope="col" className="py-1 pr-4">Failed</th>
                <th scope="col" className="py-1 pr-4">Erred (passes)</th>
              </tr>
            </thead>
            <tbody>
              {result.rules.map((r) => (
                <tr key={r.name} className="border-t border-slate-100" data-testid="rule-test-row">
                  <th scope="row" className="py-1 pr-4 font-mono font-normal">{r.name}</th>
                  <td className="py-1 pr-4" data-testid="rule-test-passed">{r.passed}</td>
                  <td className="py-1 pr-4" data-testid="rule-test-failed">{r.failed > 0 ? <strong className="text-rose-700">{r.failed}</strong> : 0}</td>
                  <td className="py-1 pr-4" data-testid="rule-test-errored">{r.errored}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {result.failing.length > 0 && (
        <ol className="space-y-3" aria-label="Failing records, newest first">
          {result.failing.map((r) => (
            <li key={`${r.partition}:${r.offset}`} className="min-w-0 rounded border border-slate-200 p-3" data-testid="rule-test-record">
              <p className="mb-2 flex flex-wrap gap-x-4 text-xs text-slate-600">
                <span>
                  Fails: <strong className="text-slate-900" data-testid="rule-test-record-rules">{r.failed.join(", ")}</strong>
                </span>
                <span>partition {r.partition} · offset {r.offset}</span>
                <span>{formatDateTime(r.timestamp)}</span>
                <span className="break-all">key {keyText(r.key)}</span>
              </p>
              <RecordValue value={r.value} />
            </li>
          ))}
        </ol>
      )}
      {result.failingRecords > result.failing.length && <p className="text-xs text-slate-500">The newest {result.failing.length} failing records are shown.</p>}
    </section>
  );
}
