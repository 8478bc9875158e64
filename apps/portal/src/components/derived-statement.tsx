"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef } from "react";
import { api, type ApiError } from "@/lib/api-client";
import type { DerivedValidationResult } from "@/lib/api-types";
import { offsetOf, outputColumns } from "@/lib/derived";
import { humanize } from "@/lib/format";
import { Link } from "./link";
import { Badge, Button, inputClass } from "./ui";

/*
 * The publish form's Flink SQL part (issue 34): the statement, a Validate
 * button that plans it with Flink through POST /api/v1/derived/validate, and
 * what comes back — the output schema Flink derives (it becomes the product's
 * schema), the inputs it reads, the lowest classification allowed, Flink's
 * plan — or Flink's own error placed on the statement's line and column.
 * Without a Flink SQL Gateway in this environment it says so and what to set.
 */

export const STATEMENT_MAX = 20_000;

export const NO_GATEWAY_MESSAGE = "This environment has no Flink SQL Gateway, so derived products cannot be validated or registered here: set FLINK_SQL_GATEWAY_URL to the SQL Gateway of a Flink session cluster.";

function numberOrNull(v: unknown): number | null {
  return typeof v === "number" && Number.isInteger(v) && v > 0 ? v : null;
}

export function DerivedStatementEditor({
  domainId,
  statement,
  onChange,
  gatewayConfigured,
  errors,
  onValidated,
}: {
  domainId: string;
  statement: string;
  onChange: (statement: string) => void;
  /** Whether this environment has FLINK_SQL_GATEWAY_URL (the server decides again on every call). */
  gatewayConfigured: boolean;
  /** Field messages from the form (an empty statement, the server's refusal). */
  errors?: string[];
  /** The latest successful validation (null when the statement changed since, or it failed). */
  onValidated: (result: DerivedValidationResult | null) => void;
}) {
  const editor = useRef<HTMLTextAreaElement>(null);
  const validate = useMutation<DerivedValidationResult, ApiError, { domainId: string; statement: string }>({
    mutationFn: (body) => api<DerivedValidationResult>("/api/v1/derived/validate", { method: "POST", body }),
    onSuccess: (result) => onValidated(result),
    onError: () => onValidated(null),
  });
  // What was validated: a result for another statement or domain is not shown as this one's.
  const current = validate.variables?.statement === statement && validate.variables.domainId === domainId;
  const failure = current && validate.isError ? validate.error : null;
  const result = current && validate.isSuccess ? validate.data : null;
  const line = failure ? numberOrNull(failure.details.line) : null;
  const column = failure ? numberOrNull(failure.details.column) : null;
  // No gateway is said once, in the note; any other refusal (an input the domain may not read, Flink's error) is shown on the statement.
  const notConfigured = failure?.code === "NOT_CONFIGURED";
  const noGateway = !gatewayConfigured || notConfigured;
  const refusal = failure && !notConfigured ? failure : null;
  const submittedLines = validate.variables?.statement.split("\n") ?? [];

  function showInEditor() {
    const area = editor.current;
    if (!area || line === null) return;
    const at = offsetOf(statement, line, column ?? 1);
    area.focus();
    area.setSelectionRange(at, at + 1);
  }

  const hintId = "statement-hint";
  const errorId = errors?.length ? "statement-error" : undefined;
  return (
    <div className="space-y-4" data-testid="derived-statement">
      {noGateway && (
        <div role="note" className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200" data-testid="no-flink-gateway">
          <p className="font-medium">No Flink SQL Gateway</p>
          <p className="mt-1">{NO_GATEWAY_MESSAGE}</p>
          <p className="mt-1">
            Locally, <code className="font-mono">npm run flink -w packages/engines</code> starts one (it needs Java 17) and prints the URL to set for the portal and the worker.
          </p>
        </div>
      )}
      <div>
        <label htmlFor="statement" className="block text-sm font-medium text-slate-800">Flink SQL statement</label>
        <textarea
          id="statement"
          ref={editor}
          rows={10}
          spellCheck={false}
          autoCapitalize="off"
          autoCorrect="off"
          maxLength={STATEMENT_MAX}
          value={statement}
          onChange={(ev) => onChange(ev.target.value)}
          aria-describedby={[hintId, errorId].filter(Boolean).join(" ")}
          aria-invalid={errorId || refusal ? true : undefined}
          className={`${inputClass} mt-1 font-mono text-xs`}
        />
        <p id={hintId} className="mt-1 text-xs text-slate-600">
          One <code className="font-mono">SELECT</code> over products your domain subscribes to, named by their topic in backquotes, e.g.{" "}
          <code className="font-mono">FROM TABLE(TUMBLE(TABLE `orders.order-events.v1`, DESCRIPTOR(placedAt), INTERVAL &apos;1&apos; MINUTE))</code>. Its output becomes the product&apos;s schema.
        </p>
        {errorId && <p id={errorId} className="mt-1 text-sm text-rose-700" data-field-error>{errors?.join(" ")}</p>}
      </div>
      <div className="flex flex-wrap items-center gap-3">
        <Button type="button" variant="secondary" disabled={validate.isPending || statement.trim() === ""} onClick={() => validate.mutate({ domainId, statement })}>
          {validate.isPending ? "Validating…" : "Validate"}
        </Button>
        {statement.trim() === "" && <span className="text-xs text-slate-600">Write the statement to validate it.</span>}
        {validate.isSuccess && !current && <span className="text-xs text-slate-600">The statement changed since it was validated.</span>}
      </div>
      <div role="status" aria-live="polite" data-testid="derived-validation">
        {refusal && (
          <div className="space-y-2 rounded-md bg-rose-50 p-3 text-sm text-rose-900 ring-1 ring-rose-200" data-testid="derived-error">
            <p className="font-medium">
              {refusal.status === 422 ? "Flink refuses the statement" : refusal.status === 403 ? "Your domain may not read an input" : "Not validated"}
              {line !== null && <> at line {line}{column !== null && <>, column {column}</>}</>}
            </p>
            <p className="whitespace-pre-wrap break-words">{refusal.message}</p>
            {line !== null && submittedLines[line - 1] !== undefined && (
              <>
                <pre className="overflow-x-auto rounded bg-white p-2 font-mono text-xs text-slate-900 ring-1 ring-rose-200" aria-label={`Line ${line} of the statement`} data-testid="derived-error-line">
                  {`${line} | ${submittedLines[line - 1]}`}
                  {column !== null && `\n${" ".repeat(String(line).length + 3 + column - 1)}^`}
                </pre>
                <Button type="button" variant="secondary" onClick={showInEditor}>Show in the statement</Button>
              </>
            )}
          </div>
        )}
        {result && <ValidationResult result={result} />}
      </div>
    </div>
  );
}

function ValidationResult({ result }: { result: DerivedValidationResult }) {
  const columns = outputColumns(result.outputSchema);
  return (
    <div className="space-y-4 rounded-md bg-emerald-50 p-3 text-sm text-emerald-950 ring-1 ring-emerald-200" data-testid="derived-result">
      <p className="font-medium">Flink plans the statement.</p>
      <div>
        <h3 className="text-sm font-semibold">Output schema</h3>
        <div className="mt-1 overflow-x-auto">
          <table className="min-w-full bg-white text-left text-xs ring-1 ring-emerald-200" data-testid="derived-columns">
            <caption className="sr-only">Columns of the derived product</caption>
            <thead className="bg-emerald-100/60 text-emerald-950">
              <tr>
                <th scope="col" className="px-2 py-1 font-medium">Column</th>
                <th scope="col" className="px-2 py-1 font-medium">Flink type</th>
                <th scope="col" className="px-2 py-1 font-medium">Null</th>
              </tr>
            </thead>
            <tbody>
              {columns.map((c) => (
                <tr key={c.name} className="border-t border-emerald-100">
                  <td className="px-2 py-1 font-mono">{c.name}</td>
                  <td className="px-2 py-1 font-mono">{c.type}</td>
                  <td className="px-2 py-1">{c.required ? "never" : "may be null"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="mt-1 text-xs">It becomes the product&apos;s schema (JSON Schema), and later versions of the statement follow its compatibility mode.</p>
      </div>
      <div>
        <h3 className="text-sm font-semibold">Inputs it reads</h3>
        <ul className="mt-1 list-inside list-disc" data-testid="derived-inputs">
          {result.inputs.map((i) => (
            <li key={i.productId}>
              <Link href={`/products/${i.productId}`} className="font-mono text-indigo-800 underline underline-offset-2 hover:no-underline">{i.topicName}</Link>
            </li>
          ))}
        </ul>
      </div>
      <p>
        Classification at least <Badge value={result.minimumClassification} label={humanize(result.minimumClassification)} />: the most sensitive of its inputs.
      </p>
      <details>
        <summary className="cursor-pointer font-medium">Flink&apos;s plan</summary>
        <pre className="mt-1 max-h-80 overflow-auto rounded bg-slate-900 p-3 font-mono text-xs text-slate-100" tabIndex={0} aria-label="Flink's plan">{result.plan}</pre>
      </details>
    </div>
  );
}
