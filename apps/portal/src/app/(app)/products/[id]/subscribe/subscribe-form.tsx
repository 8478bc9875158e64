"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState, type FormEvent } from "react";
import { evaluatePolicy, resultsByField, type PolicyDocument } from "@kappa/catalog/policy";
import { LIMITS, requestSubscriptionInput, fieldErrors } from "@kappa/catalog/validation";
import { PolicyNotes, PolicyResultList, PolicySummary } from "@/components/policy-results";
import { ServiceAccountForm } from "@/components/service-account-form";
import { Button, Card, ErrorAlert, Field, inputClass, Loading } from "@/components/ui";
import { api, type ApiError } from "@/lib/api-client";
import type { ServiceAccountOption } from "@/lib/api-types";
import { formatBytes } from "@/lib/observations";
import { queryKeys } from "@/lib/query-keys";
import { useHydrated } from "@/lib/use-hydrated";

export function SubscribeForm({
  productId,
  productDomainId,
  classification,
  ownerDomains,
  policy,
  environments,
  quotaClasses,
}: {
  productId: string;
  productDomainId: string;
  classification: string;
  ownerDomains: { id: string; slug: string }[];
  policy: { version: number; document: PolicyDocument };
  /** Where the product is live: the primary environment first, then every environment its promotion is ACTIVE in. */
  environments: string[];
  /** The policy's client quota classes (page.tsx): the default first chosen; a larger one needs governance and a reason. */
  quotaClasses: { name: string; producerByteRate: number; consumerByteRate: number; isDefault: boolean; needsApproval: boolean }[];
}) {
  const router = useRouter();
  const client = useQueryClient();
  const accounts = useQuery({ queryKey: queryKeys.serviceAccounts, queryFn: ({ signal }) => api<ServiceAccountOption[]>("/api/v1/service-accounts", { signal }) });
  const options = (accounts.data ?? []).filter((a) => a.domainId !== productDomainId);
  const [serviceAccountId, setServiceAccountId] = useState("");
  const [purpose, setPurpose] = useState("");
  const hydrated = useHydrated();
  /** YYYY-MM-DD from the date input; access ends at the end of that day (UTC). */
  const [expiresOn, setExpiresOn] = useState("");
  // The earliest end of access is tomorrow (UTC), fixed when the form opens.
  const [tomorrow] = useState(() => new Date(Date.now() + 86_400_000).toISOString().slice(0, 10));
  const [environment, setEnvironment] = useState(environments[0] ?? "");
  const [piiNeeded, setPiiNeeded] = useState(false);
  const [piiJustification, setPiiJustification] = useState("");
  const [quotaClass, setQuotaClass] = useState(quotaClasses.find((c) => c.isDefault)?.name ?? "");
  const [quotaClassReason, setQuotaClassReason] = useState("");
  const quotaNeedsApproval = quotaClasses.find((c) => c.name === quotaClass)?.needsApproval ?? false;
  const [errors, setErrors] = useState<Record<string, string[]>>({});
  const chosen = options.find((o) => o.id === (serviceAccountId || options[0]?.id));
  // The subscription rules, evaluated as the user types and picks (the server evaluates again).
  const evaluation = evaluatePolicy(policy.document, "subscription.request", {
    subscription: { purpose, accountName: chosen?.name ?? "", openSubscriptionsOfAccount: chosen?._count.subscriptions ?? 0, productClassification: classification },
  });
  const byField = resultsByField(evaluation.results);
  const [creating, setCreating] = useState(false);
  const selected = serviceAccountId || options[0]?.id || "";

  const request = useMutation<{ id: string }, ApiError, { productId: string; serviceAccountId: string; purpose: string; piiNeeded: boolean; piiJustification?: string; expiresAt?: string; environment?: string; quotaClass?: string; quotaClassReason?: string }>({
    mutationFn: (body) => api("/api/v1/subscriptions", { method: "POST", body }),
    onSuccess: async () => {
      await Promise.all([
        client.invalidateQueries({ queryKey: queryKeys.products.detail(productId) }),
        client.invalidateQueries({ queryKey: queryKeys.myDomains }),
        client.invalidateQueries({ queryKey: queryKeys.reviewQueue }),
      ]);
      router.push(`/products/${productId}`);
    },
    onError: (error) => setErrors(error.fields),
  });

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const body = {
      productId,
      serviceAccountId: selected,
      purpose,
      piiNeeded,
      ...(piiNeeded ? { piiJustification } : {}),
      ...(quotaClass ? { quotaClass } : {}),
      ...(quotaNeedsApproval ? { quotaClassReason } : {}),
      ...(expiresOn ? { expiresAt: `${expiresOn}T23:59:59.000Z` } : {}),
      // Only where the product is live in more than one environment is there a choice to send.
      ...(environments.length > 1 ? { environment } : {}),
    };
    const parsed = requestSubscriptionInput.safeParse(body);
    if (!parsed.success) {
      setErrors(fieldErrors(parsed.error));
      return;
    }
    setErrors({});
    request.mutate(body);
  }

  if (accounts.isPending) return <Loading label="Loading your service accounts…" />;
  if (accounts.isError) return <ErrorAlert message={accounts.error.message} />;

  return (
    <div className="grid items-start gap-6 lg:grid-cols-[1fr_22rem]">
      <Card>
        <form onSubmit={submit} className="space-y-4" noValidate>
          {options.length > 0 ? (
            <Field id="serviceAccountId" label="Service account" errors={errors.serviceAccountId} notes={purpose && byField.serviceAccountId ? <PolicyNotes id="serviceAccountId-notes" results={byField.serviceAccountId} /> : undefined} hint="The Kafka user that will read; consumer groups must start with its name and a dot.">
              {(a) => (
                <select {...a} value={selected} onChange={(e) => setServiceAccountId(e.target.value)} className={inputClass}>
                  {options.map((o) => (
                    <option key={o.id} value={o.id}>User:{o.name} ({o.domain.name})</option>
                  ))}
                </select>
              )}
            </Field>
          ) : (
            <p className="rounded-md bg-amber-50 p-3 text-sm text-amber-900 ring-1 ring-amber-200">Your domain has no consumer service account yet; create one first.</p>
          )}
          {environments.length > 1 && (
            <Field id="environment" label="Environment" errors={errors.environment} hint="Access is granted on that environment's cluster only; the product is live in these.">
              {(a) => (
                <select {...a} value={environment} onChange={(e) => setEnvironment(e.target.value)} className={inputClass}>
                  {environments.map((name) => (
                    <option key={name} value={name}>{name}</option>
                  ))}
                </select>
              )}
            </Field>
          )}
          <Field id="purpose" label="Purpose" errors={errors.purpose} notes={purpose && byField.purpose ? <PolicyNotes id="purpose-notes" results={byField.purpose} /> : undefined} hint={`Why you need the data (at least ${LIMITS.purposeMin} characters); reviewers see it.`}>
            {(a) => <textarea {...a} rows={4} readOnly={!hydrated} value={purpose} onChange={(e) => setPurpose(e.target.value)} className={inputClass} />}
          </Field>
          <Field id="expiresAt" label="Access ends (optional)" errors={errors.expiresAt} hint="For temporary needs: access is revoked at the end of this day (UTC). Leave empty to keep it until revoked; owners recertify it on the policy's schedule either way.">
            {(a) => <input {...a} type="date" min={tomorrow} value={expiresOn} onChange={(e) => setExpiresOn(e.target.value)} className={inputClass} />}
          </Field>
          {quotaClasses.length > 0 && (
            <Field id="quotaClass" label="Quota class" errors={errors.quotaClass} hint="The Kafka client quota of the account (bytes per second it may read and write). A class larger than the default needs governance's approval besides the owners'; until then the account reads under the default.">
              {(a) => (
                <select {...a} value={quotaClass} onChange={(e) => setQuotaClass(e.target.value)} className={inputClass}>
                  {quotaClasses.map((c) => (
                    <option key={c.name} value={c.name}>
                      {c.name} — read {formatBytes(c.consumerByteRate)}/s, write {formatBytes(c.producerByteRate)}/s{c.isDefault ? " (default)" : c.needsApproval ? " (needs approval)" : ""}
                    </option>
                  ))}
                </select>
              )}
            </Field>
          )}
          {quotaNeedsApproval && (
            <Field id="quotaClassReason" label="Why the account needs this class" errors={errors.quotaClassReason} hint="Governance reads it.">
              {(a) => <textarea {...a} rows={2} value={quotaClassReason} onChange={(e) => setQuotaClassReason(e.target.value)} className={inputClass} />}
            </Field>
          )}
          <fieldset className="space-y-2">
            <legend className="sr-only">Personal data</legend>
            <label className="flex items-start gap-2 text-sm">
              <input type="checkbox" className="mt-1" checked={piiNeeded} onChange={(e) => setPiiNeeded(e.target.checked)} />
              <span>
                <span className="font-medium">PII needed</span> — show this domain the fields tagged as personal data (and record keys and headers) unmasked in the portal&apos;s message browser and latest-state view. Governance decides this separately; until then they stay masked there. Masking is the portal&apos;s: the subscription&apos;s own Kafka account reads records as written, personal data in clear, until field-level encryption exists.
              </span>
            </label>
            {piiNeeded && (
              <Field id="piiJustification" label="Why you need the personal data" errors={errors.piiJustification} hint={`At least ${LIMITS.purposeMin} characters; governance reads it.`}>
                {(a) => <textarea {...a} rows={2} value={piiJustification} onChange={(e) => setPiiJustification(e.target.value)} className={inputClass} />}
              </Field>
            )}
          </fieldset>
          {(classification === "CONFIDENTIAL" || classification === "RESTRICTED") && (
            <p className="text-sm text-slate-600">This product is {classification.toLowerCase()}: {classification === "RESTRICTED" ? "governance" : "its owners or governance"} must approve the request.</p>
          )}
          <details className="rounded-md bg-slate-50 px-3 py-2 text-sm ring-1 ring-slate-200" data-testid="policy-checks">
            <summary className="cursor-pointer">Policy checks (v{policy.version}): <PolicySummary results={evaluation.results} /></summary>
            <div className="mt-2"><PolicyResultList results={evaluation.results} /></div>
          </details>
          <ErrorAlert message={request.isError ? request.error.message : null}>{errors.productId && <p>{errors.productId.join(" ")}</p>}</ErrorAlert>
          <Button type="submit" disabled={request.isPending || options.length === 0}>
            {request.isPending ? "Sending…" : "Request subscription"}
          </Button>
        </form>
      </Card>
      {ownerDomains.length > 0 && (
        <Card title="New service account" className="self-start">
          {creating || options.length === 0 ? (
            <ServiceAccountForm domainId={ownerDomains[0]?.id ?? ""} domainSlug={ownerDomains[0]?.slug ?? ""} compact onCreated={(a) => { setServiceAccountId(a.id); setCreating(false); }} />
          ) : (
            <Button variant="secondary" onClick={() => setCreating(true)}>Create another account</Button>
          )}
        </Card>
      )}
    </div>
  );
}
