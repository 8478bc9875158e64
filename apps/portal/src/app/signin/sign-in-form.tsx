"use client";

import { useState, type FormEvent } from "react";
import { Button, ErrorAlert, Field, inputClass } from "@/components/ui";
import { formText } from "@/lib/form-text";

/*
 * next-auth's client (ES5 with its regenerator runtime, ~50 KB) is loaded when
 * the user starts on the form, not with the page: evaluating it at load was
 * main-thread time during hydration. Focus in the form starts the download.
 */
const nextAuth = () => import("next-auth/react");

const MESSAGES: Record<string, string> = {
  CredentialsSignin: "Wrong e-mail or password.",
  SessionRequired: "Sign in to continue.",
  OAuthSignin: "Single sign-on could not start; try again.",
  OAuthCallback: "Single sign-on failed; try again.",
  AccessDenied: "Your single sign-on account has no e-mail address we can use.",
  SignInUnavailable: "Sign-in is unavailable right now; try again in a moment.",
};

/** next-auth's error code → what the user reads; "Throttled-<seconds>" carries the wait. */
export function signInMessage(code: string | undefined | null): string {
  if (!code) return MESSAGES.CredentialsSignin ?? "";
  const throttled = /^Throttled-(\d{1,6})$/.exec(code);
  if (throttled) return `Too many failed sign-ins for this account or from this address. Wait ${throttled[1]} seconds and try again.`;
  return MESSAGES[code] ?? "Sign-in failed; try again.";
}

export function SignInForm({ callbackUrl, initialError, sso }: { callbackUrl: string; initialError?: string; sso: { id: string; name: string } | null }) {
  const [error, setError] = useState<string | null>(initialError ? signInMessage(initialError) : null);
  const [pending, setPending] = useState(false);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const data = new FormData(event.currentTarget);
    setPending(true);
    setError(null);
    try {
      const { signIn } = await nextAuth();
      const result = await signIn("credentials", {
        email: formText(data, "email"),
        password: formText(data, "password"),
        redirect: false,
      });
      if (!result || result.error) {
        setError(signInMessage(result?.error));
        setPending(false);
        return;
      }
      // A full navigation so every server component renders with the new session.
      window.location.assign(callbackUrl);
    } catch (cause) {
      // A network failure in the browser; nothing from the server to show.
      void cause;
      setError("Sign-in failed: the portal could not be reached. Try again.");
      setPending(false);
    }
  }

  return (
    <div className="space-y-4" onFocusCapture={() => void nextAuth().catch(() => undefined)}>
      <form onSubmit={onSubmit} className="space-y-4" noValidate>
        <Field id="email" label="E-mail">
          {(a) => <input {...a} name="email" type="email" autoComplete="username" required className={inputClass} />}
        </Field>
        <Field id="password" label="Password">
          {(a) => <input {...a} name="password" type="password" autoComplete="current-password" required className={inputClass} />}
        </Field>
        <ErrorAlert message={error} />
        <Button type="submit" disabled={pending} className="w-full">
          {pending ? "Signing in…" : "Sign in"}
        </Button>
      </form>
      {sso && (
        <>
          <div className="flex items-center gap-3 text-xs text-slate-500">
            <span className="h-px flex-1 bg-slate-200" /> or <span className="h-px flex-1 bg-slate-200" />
          </div>
          <Button variant="secondary" className="w-full" onClick={() => void nextAuth().then(({ signIn }) => signIn(sso.id, { callbackUrl }))}>
            Sign in with {sso.name}
          </Button>
        </>
      )}
    </div>
  );
}
