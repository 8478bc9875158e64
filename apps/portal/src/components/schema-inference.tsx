"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { api, type ApiError } from "@/lib/api-client";
import type { TopicSchemaInference } from "@/lib/api-types";
import { formatDateTime } from "@/lib/format";
import { queryKeys } from "@/lib/query-keys";
import { Button, ErrorAlert } from "./ui";

const POLL_MS = 1_000;
/** A request the worker has not picked up by now is probably not going to be (worker stopped): say so. */
const SLOW_MS = 30_000;

const FORMAT_NAMES = { AVRO: "Avro", JSON_SCHEMA: "JSON Schema" } as const;

/**
 * The claim form's "Infer from sample records": the portal cannot read Kafka,
 * so it asks the worker (POST), polls the result (GET) and, when a schema came
 * out of the request made here, prefills the form's format and definition.
 * Only the schema ever reaches the browser, never a record.
 */
export function SchemaInference({ topic, onInferred }: { topic: string; onInferred: (format: "AVRO" | "JSON_SCHEMA", definition: string) => void }) {
  const client = useQueryClient();
  const key = queryKeys.schemaInference(topic);
  const path = `/api/v1/cluster/topics/schema-inference`;
  // The requestedAt of the request made on this page; its result is applied once.
  const [asked, setAsked] = useState<string | null>(null);
  const applied = useRef<string | null>(null);
  const [now, setNow] = useState(() => Date.now());
  const result = useQuery({
    queryKey: key,
    queryFn: ({ signal }) => api<TopicSchemaInference | null>(`${path}?topic=${encodeURIComponent(topic)}`, { signal }),
    refetchInterval: (q) => (q.state.data?.status === "PENDING" ? POLL_MS : false),
  });
  const request = useMutation<TopicSchemaInference, ApiError>({
    mutationFn: () => api<TopicSchemaInference>(path, { method: "POST", body: { topic } }),
    onSuccess: (pending) => {
      setAsked(pending.requestedAt);
      client.setQueryData(key, pending);
    },
  });
  const data = result.data ?? null;
  const fresh = data !== null && asked === data.requestedAt;
  const waiting = data?.status === "PENDING";

  // A clock only while waiting, to tell a slow worker from a stopped one.
  useEffect(() => {
    if (!waiting) return;
    const t = setInterval(() => setNow(Date.now()), POLL_MS);
    return () => clearInterval(t);
  }, [waiting]);

  useEffect(() => {
    if (!data || !fresh || applied.current === data.requestedAt) return;
    if (data.status === "DONE" && data.inferred && data.format && data.definition) {
      applied.current = data.requestedAt;
      onInferred(data.format, data.definition);
    }
  }, [data, fresh, onInferred]);

  const pending = request.isPending || waiting;
  const slow = waiting && now - new Date(data.requestedAt).getTime() > SLOW_MS;
  return (
    <div className="space-y-2 rounded-md bg-slate-50 p-3 ring-1 ring-slate-200" data-testid="schema-inference">
      <div className="flex flex-wrap items-center gap-3">
        <Button type="button" variant="secondary" disabled={pending} onClick={() => request.mutate()}>
          {pending ? "Reading sample records…" : "Infer from sample records"}
        </Button>
        <p className="text-xs text-slate-600">The worker reads up to 200 of the topic&apos;s newest records; only the inferred schema is kept — you review it before submitting.</p>
      </div>
      <div role="status" aria-live="polite" className="text-sm text-slate-800">
        {data?.status === "PENDING" && (slow ? "Still waiting for the worker to read the topic — is the worker running?" : "Waiting for the worker to read sample records…")}
        {data?.status === "DONE" && data.inferred && (
          <div className="space-y-1">
            <p className="font-medium">
              {fresh ? "Schema prefilled below" : `A schema was inferred ${formatDateTime(data.finishedAt)}`}: {data.format ? FORMAT_NAMES[data.format] : ""} from {data.sampled} sampled record{data.sampled === 1 ? "" : "s"}.
            </p>
            <p className="text-slate-700">{data.explanation}</p>
          </div>
        )}
      </div>
      {data?.status === "DONE" && data.inferred && !fresh && data.format && data.definition && (
        <Button type="button" variant="secondary" onClick={() => data.format && data.definition && onInferred(data.format, data.definition)}>
          Use this schema
        </Button>
      )}
      {data?.status === "DONE" && !data.inferred && (
        <ErrorAlert>
          <span className="font-medium">No schema could be inferred. </span>
          {data.explanation}
        </ErrorAlert>
      )}
      {data?.status === "FAILED" && <ErrorAlert message={`Reading sample records failed: ${data.lastError ?? "unknown error"} Try again, or paste the schema.`} />}
      {request.isError && <ErrorAlert message={request.error.message} />}
      {result.isError && <ErrorAlert message={`Could not load the inference: ${result.error.message}`} />}
    </div>
  );
}

/**
 * A platform admin's approval that the owners of the open claim on a topic may
 * have the worker sample it (schema inference reads records no grant covers).
 */
export function ApproveClaimSampling({ topic, domain, approvedAt }: { topic: string; domain: string; approvedAt: string | null }) {
  const router = useRouter();
  const approve = useMutation<{ samplingApprovedAt: string }, ApiError>({
    mutationFn: () => api<{ samplingApprovedAt: string }>("/api/v1/cluster/topics/sampling-approval", { method: "POST", body: { topic } }),
    onSuccess: () => router.refresh(),
  });
  return (
    <div className="mb-6 space-y-2 rounded-md bg-slate-50 p-3 text-sm ring-1 ring-slate-200" data-testid="claim-sampling">
      <p>
        The {domain} domain has an open claim on this topic.{" "}
        {approvedAt ? `Its owners may infer the schema from sample records (approved ${formatDateTime(approvedAt)}).` : "Its owners may infer the schema from sample records only once a platform admin approves: sampled records may hold data no grant covers."}
      </p>
      {!approvedAt && (
        <Button type="button" variant="secondary" disabled={approve.isPending} onClick={() => approve.mutate()}>
          Allow the claim&apos;s owners to sample
        </Button>
      )}
      {approve.isError && <ErrorAlert message={approve.error.message} />}
    </div>
  );
}
