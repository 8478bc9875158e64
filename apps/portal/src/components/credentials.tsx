"use client";

import type { QueryKey } from "@tanstack/react-query";
import { useEffect, useId, useRef, useState } from "react";
import { formatDateTime } from "@/lib/format";
import { useRevealCredentials, useRotateCredentials } from "@/lib/mutations";
import { Button, ErrorAlert, Notice } from "./ui";

/* A service account's SCRAM password: picked up once, then only rotation. Used for subscribers and producers. */

export interface CredentialState {
  state: "waiting" | "shown" | "not-issued";
  issuedAt: string | null;
  canManage: boolean;
  rotation: { id: string; status: string; lastError: string | null; requestedAt: string } | null;
  /** Who authenticates as this account (owners only): what a rotation cuts off. */
  cutOff?: { writes: string[]; reads: { product: string; topic: string }[]; activeGroups: { groupId: string; members: number }[] } | null;
}

export function Credentials({ account, domainName, credentials: c, shownIn }: { account: { id: string; name: string }; domainName: string; credentials: CredentialState; shownIn: QueryKey }) {
  const reveal = useRevealCredentials(shownIn);
  const rotate = useRotateCredentials(shownIn);
  const rotating = c.rotation !== null && c.rotation.status !== "FAILED";
  const [confirming, setConfirming] = useState(false);

  if (reveal.data) {
    return (
      <div className="space-y-3" data-testid="revealed-credentials">
        <Notice>Shown once: store the password in your secret manager now. This page will not show it again.</Notice>
        <CopyField label="User name" value={reveal.data.username} />
        <CopyField label="Password" value={reveal.data.password} />
      </div>
    );
  }
  return (
    <div className="space-y-3 text-sm" data-testid="credentials">
      <p>
        Service account <span className="font-mono">User:{account.name}</span> of {domainName}.
      </p>
      {c.state === "not-issued" && <p className="text-slate-600">The worker has not issued credentials for this account yet; this updates by itself.</p>}
      {c.state === "waiting" &&
        (c.canManage ? (
          <>
            <p className="text-slate-600">A password was issued {formatDateTime(c.issuedAt)}. It can be shown exactly once.</p>
            <Button disabled={reveal.isPending} onClick={() => reveal.mutate({ serviceAccountId: account.id })}>
              {reveal.isPending ? "Revealing…" : "Reveal password"}
            </Button>
          </>
        ) : (
          <p className="text-slate-600">A password is waiting; only an owner of {domainName} can pick it up, once.</p>
        ))}
      {c.state === "shown" && (
        <p className="text-slate-600" data-testid="credentials-shown">
          The password issued {formatDateTime(c.issuedAt)} was already shown once and is not stored anywhere readable.
        </p>
      )}
      <ErrorAlert message={reveal.isError ? reveal.error.message : rotate.isError ? rotate.error.message : null} />
      {rotating && c.rotation && <Notice>New credentials requested {formatDateTime(c.rotation.requestedAt)}; the worker is issuing them. Reveal them here once they are ready.</Notice>}
      {c.rotation?.status === "FAILED" && <ErrorAlert message={`Credential rotation failed: ${c.rotation.lastError ?? "no message"}`} />}
      {c.canManage && c.state === "shown" && !rotating && !confirming && (
        <>
          <Button variant="secondary" onClick={() => setConfirming(true)}>
            Rotate credentials
          </Button>
          <p className="text-xs text-slate-500">Rotation replaces the password on the cluster; clients using the old one stop authenticating.</p>
        </>
      )}
      {c.canManage && c.state === "shown" && !rotating && confirming && (
        <RotationConfirmation
          principal={`User:${account.name}`}
          cutOff={c.cutOff ?? null}
          pending={rotate.isPending}
          onConfirm={() => rotate.mutate({ serviceAccountId: account.id }, { onSettled: () => setConfirming(false) })}
          onCancel={() => setConfirming(false)}
        />
      )}
    </div>
  );
}

/** Says who stops authenticating before a rotation is queued; nothing happens until "Rotate now". */
function RotationConfirmation({
  principal,
  cutOff,
  pending,
  onConfirm,
  onCancel,
}: {
  principal: string;
  cutOff: CredentialState["cutOff"] | null;
  pending: boolean;
  onConfirm: () => void;
  onCancel: () => void;
}) {
  const headingId = useId();
  const cancel = useRef<HTMLButtonElement>(null);
  // Keyboard users land in the confirmation, on the safe choice.
  useEffect(() => cancel.current?.focus(), []);
  const nothing = cutOff !== null && cutOff !== undefined && cutOff.writes.length === 0 && cutOff.reads.length === 0 && cutOff.activeGroups.length === 0;
  return (
    <section role="alertdialog" aria-labelledby={headingId} className="space-y-2 rounded-md bg-amber-50 p-3 ring-1 ring-amber-200" data-testid="rotation-confirmation">
      <h3 id={headingId} className="font-medium text-amber-900">
        Rotate the password of {principal}?
      </h3>
      <p className="text-amber-900">As soon as the worker issues the new password, every client still using the old one stops authenticating:</p>
      {cutOff ? (
        <ul className="list-disc space-y-1 pl-5 text-amber-900">
          {cutOff.writes.map((t) => (
            <li key={`w-${t}`}>
              producers writing <span className="font-mono">{t}</span>
            </li>
          ))}
          {cutOff.reads.map((r) => (
            <li key={`r-${r.topic}`}>
              consumers of {r.product} (<span className="font-mono">{r.topic}</span>)
            </li>
          ))}
          {cutOff.activeGroups.map((g) => (
            <li key={`g-${g.groupId}`}>
              consumer group <span className="font-mono">{g.groupId}</span>, connected now with {g.members} member{g.members === 1 ? "" : "s"}
            </li>
          ))}
          {nothing && <li>no grants use this account right now</li>}
        </ul>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button variant="danger" disabled={pending} onClick={onConfirm}>
          {pending ? "Requesting…" : "Rotate now"}
        </Button>
        <Button ref={cancel} variant="secondary" disabled={pending} onClick={onCancel}>
          Cancel
        </Button>
      </div>
    </section>
  );
}

function CopyField({ label, value }: { label: string; value: string }) {
  const [copied, setCopied] = useState(false);
  const id = useId();
  return (
    <div>
      <label htmlFor={id} className="block text-xs font-medium text-slate-600">{label}</label>
      <div className="mt-1 flex gap-2">
        <input id={id} readOnly value={value} className="block w-full rounded-md border-0 bg-slate-50 px-3 py-2 font-mono text-xs ring-1 ring-inset ring-slate-300" autoComplete="off" spellCheck={false} onFocus={(e) => e.currentTarget.select()} />
        <CopyButton text={value} label={`Copy ${label.toLowerCase()}`} onCopied={() => setCopied(true)} />
      </div>
      <span role="status" aria-live="polite" className="text-xs text-emerald-700">{copied ? `${label} copied.` : ""}</span>
    </div>
  );
}

export function CopyButton({ text, label, onCopied, children = "Copy" }: { text: string; label?: string; onCopied: () => void; children?: string }) {
  const [failed, setFailed] = useState(false);
  return (
    <>
      <Button
        variant="secondary"
        aria-label={label}
        onClick={() => {
          // The clipboard API exists only in secure contexts (https or localhost).
          if (!navigator.clipboard) return setFailed(true);
          navigator.clipboard.writeText(text).then(onCopied, () => setFailed(true));
        }}
      >
        {children}
      </Button>
      {failed && <span role="alert" className="text-xs text-rose-700">Copying is blocked here; select the text and copy it.</span>}
    </>
  );
}
