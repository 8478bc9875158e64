"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useState, type ChangeEvent, type FormEvent } from "react";
import { StricterModes, Verdict } from "@/components/compatibility-verdict";
import { FieldDiff } from "@/components/schema-diff";
import { Button, ErrorAlert, Field, inputClass, Loading, Notice } from "@/components/ui";
import { api } from "@/lib/api-client";
import type { SchemaCheck } from "@/lib/api-types";
import { formText } from "@/lib/form-text";
import { usePublishMajorVersion, useProposeSchemaVersion } from "@/lib/mutations";
import { useHydrated } from "@/lib/use-hydrated";

function pretty(definition: string): string {
  try {
    return JSON.stringify(JSON.parse(definition), null, 2);
  } catch {
    return definition;
  }
}

/** The text the check runs on, settled for a moment so typing does not send a request per key. */
function useSettled(value: string, ms = 400): string {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/**
 * The next schema version: pasted or uploaded, checked as it is typed against
 * the versions the product's mode names (nothing is stored by the check).
 * A compatible one is submitted for review; a breaking one is refused with
 * every incompatibility and offered as a new major version instead.
 */
export function ProposeSchemaVersion({ productId, format, latest }: { productId: string; format: "AVRO" | "JSON_SCHEMA"; latest: string }) {
  const router = useRouter();
  const [text, setText] = useState(() => pretty(latest));
  const hydrated = useHydrated();
  const settled = useSettled(text);
  const unchangedText = settled.trim() === pretty(latest).trim();
  const check = useQuery({
    queryKey: ["schema-check", productId, settled],
    queryFn: ({ signal }) => api<SchemaCheck>(`/api/v1/products/${productId}/schema-versions/check`, { method: "POST", body: { definition: settled }, signal }),
    enabled: settled.trim().length > 0 && !unchangedText,
    placeholderData: keepPreviousData,
    staleTime: Infinity,
  });
  const propose = useProposeSchemaVersion(productId);
  const result = check.data;
  const current = !check.isPlaceholderData && settled === text;

  async function onUpload(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (file) setText(await file.text());
  }

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    propose.mutate({ definition: text }, { onSuccess: () => router.refresh() });
  }

  const canSubmit = current && result?.valid === true && result.identicalTo === null && result.compatible === true;
  return (
    <div className="space-y-4">
      <form onSubmit={submit} className="space-y-4" aria-describedby="schema-check-status">
        <Field
          id="proposedSchema"
          label={`New ${format === "AVRO" ? "Avro" : "JSON Schema"} definition`}
          hint="Starts from the current version; change it or paste a whole new one. It is checked as you type."
          errors={propose.error?.fields?.definition}
        >
          {(a) => <textarea {...a} rows={16} spellCheck={false} readOnly={!hydrated} value={text} onChange={(e) => setText(e.target.value)} className={`${inputClass} font-mono text-xs`} />}
        </Field>
        <div>
          <label htmlFor="proposedSchemaFile" className="text-sm font-medium text-slate-800">Or upload a schema file</label>
          <input id="proposedSchemaFile" type="file" accept=".avsc,.json,application/json" onChange={(e) => void onUpload(e)} className="mt-1 block text-sm file:mr-3 file:rounded-md file:border-0 file:bg-slate-100 file:px-3 file:py-1.5 file:text-sm file:font-medium hover:file:bg-slate-200" />
        </div>

        <div id="schema-check-status" role="status" aria-live="polite" className="space-y-3" data-testid="schema-check">
          {unchangedText ? (
            <p className="text-sm text-slate-600">This is the current version; change it to check a proposal.</p>
          ) : check.isFetching && !result ? (
            <Loading label="Checking…" />
          ) : check.isError ? (
            <ErrorAlert message={check.error.message} />
          ) : result && !result.valid ? (
            <ErrorAlert message={result.problem} />
          ) : result?.valid && result.identicalTo !== null ? (
            <p className="text-sm text-slate-700">Identical to version {result.identicalTo}: not a new version.</p>
          ) : result?.valid ? (
            <>
              <Verdict mode={result.mode} compatible={result.compatible} checkedVersions={result.checkedVersions} issues={result.issues} />
              <div>
                <h3 className="mb-1 text-xs font-medium uppercase tracking-wide text-slate-500">Under stricter modes</h3>
                <StricterModes modes={result.stricter} />
              </div>
              {result.againstVersion !== null && (
                <FieldDiff format={format} older={{ label: `v${result.againstVersion}`, definition: latest }} newer={{ label: `v${result.proposedVersion} (proposed)`, definition: settled }} changes={result.fieldChanges} />
              )}
            </>
          ) : null}
          {check.isFetching && result && <p className="text-xs text-slate-500">Checking the latest edit…</p>}
        </div>

        <ErrorAlert message={propose.isError && !propose.error.fields?.definition ? propose.error.message : null} />
        {propose.isSuccess && <Notice>Version {propose.data.version} is proposed; a governance reviewer decides on it.</Notice>}
        <Button type="submit" disabled={!canSubmit || propose.isPending}>
          {propose.isPending ? "Submitting…" : result?.valid ? `Submit v${result.proposedVersion} for review` : "Submit for review"}
        </Button>
      </form>

      {current && result?.valid && result.identicalTo === null && !result.compatible && result.newMajorVersion && (
        <PublishMajorVersion productId={productId} definition={settled} offer={result.newMajorVersion} />
      )}
    </div>
  );
}

/** The offer for a breaking change: the same product as its next major version, on a new topic. */
function PublishMajorVersion({ productId, definition, offer }: { productId: string; definition: string; offer: { majorVersion: number; topicName: string } }) {
  const router = useRouter();
  const publish = usePublishMajorVersion(productId);
  const fields = publish.error?.fields ?? {};
  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const date = formText(form, "sunsetAt");
    const reason = formText(form, "reason").trim();
    const downgrade = formText(form, "downgrade").trim();
    const upgrade = formText(form, "upgrade").trim();
    const migrationRules = downgrade ? { downgrade, ...(upgrade ? { upgrade } : {}) } : undefined;
    publish.mutate(
      { definition, ...(date ? { sunsetAt: new Date(`${date}T00:00:00Z`).toISOString() } : {}), ...(reason ? { reason } : {}), ...(migrationRules ? { migrationRules } : {}) },
      { onSuccess: (next) => router.push(`/products/${next.id}`) },
    );
  }
  return (
    <section className="rounded-lg bg-indigo-50 p-4 ring-1 ring-indigo-200" aria-labelledby="major-version-title" data-testid="major-version-offer">
      <h3 id="major-version-title" className="font-semibold text-indigo-950">Publish as a new major version: v{offer.majorVersion}</h3>
      <p className="mt-1 text-sm text-indigo-900">
        A breaking change goes to a new topic, <span className="font-mono">{offer.topicName}</span>: a new product with this schema, the same owner and metadata, and its own review
        and provisioning. This version stays as it is until governance approves v{offer.majorVersion}; only then is it deprecated, with the sunset date you choose here (left empty:
        the policy&apos;s deprecation notice, counted from the approval), and its subscribers are shown the new version and can request the same access on it in one step. If
        v{offer.majorVersion} is rejected, nothing changes here.
      </p>
      <form onSubmit={submit} className="mt-3 grid gap-3 sm:grid-cols-2">
        <Field id="major-sunset" label="Sunset date of the current version" errors={fields.sunsetAt}>
          {(a) => <input {...a} name="sunsetAt" type="date" className={inputClass} />}
        </Field>
        <Field id="major-reason" label="Why (shown to subscribers)" errors={fields.reason}>
          {(a) => <input {...a} name="reason" maxLength={2000} className={inputClass} />}
        </Field>
        <Field
          id="major-downgrade"
          label={`Migration rule to v${offer.majorVersion - 1} (JSONata, optional)`}
          errors={fields["migrationRules.downgrade"] ?? fields.migrationRules}
          hint={`Turns a v${offer.majorVersion} record into a v${offer.majorVersion - 1} one, so consumers of v${offer.majorVersion - 1} can read the new topic with their old code (useLatestWithMetadata major_version ${offer.majorVersion - 1}). Reviewed with the new version.`}
        >
          {(a) => <textarea {...a} name="downgrade" rows={3} maxLength={4000} spellCheck={false} className={`${inputClass} font-mono text-xs`} />}
        </Field>
        <Field id="major-upgrade" label={`Migration rule from v${offer.majorVersion - 1} (optional)`} errors={fields["migrationRules.upgrade"]} hint={`The reverse: a v${offer.majorVersion - 1} record as a v${offer.majorVersion} one. Only with a rule to v${offer.majorVersion - 1}.`}>
          {(a) => <textarea {...a} name="upgrade" rows={3} maxLength={4000} spellCheck={false} className={`${inputClass} font-mono text-xs`} />}
        </Field>
        <div className="sm:col-span-2">
          <ErrorAlert message={publish.isError && !fields.sunsetAt && !fields["migrationRules.downgrade"] && !fields["migrationRules.upgrade"] ? publish.error.message : null} />
          <Button type="submit" disabled={publish.isPending} className="mt-2">
            {publish.isPending ? "Publishing…" : `Publish v${offer.majorVersion}`}
          </Button>
        </div>
      </form>
    </section>
  );
}
