import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { UnauthenticatedError } from "@kappa/catalog";
import { env, oidcEnabled } from "@/env";
import { safeCallbackPath } from "@/lib/request-path";
import { currentActor } from "@/server/actor";
import { SignInForm } from "./sign-in-form";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

const DEMO_ACCOUNTS = [
  ["owner@orders.example", "owner of domain orders"],
  ["owner@payments.example", "owner of domain payments"],
  ["member@orders.example", "member of domain orders"],
  ["reviewer@governance.example", "governance reviewer"],
  ["admin@kappa.example", "platform admin"],
] as const;

export default async function SignInPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  const params = await searchParams;
  const e = env();
  const callbackUrl = safeCallbackPath(params.callbackUrl);
  const error = typeof params.error === "string" ? params.error : undefined;
  if (await signedIn()) redirect(callbackUrl);
  return (
    <main className="flex min-h-screen items-center justify-center px-4 py-12">
      <div className="w-full max-w-md">
        <div className="mb-6 flex items-center justify-center gap-2 text-xl font-semibold">
          <span aria-hidden="true" className="grid h-8 w-8 place-items-center rounded-md bg-indigo-600 text-white">κ</span>
          Kappa Mesh
        </div>
        <div className="rounded-lg bg-white p-6 shadow-sm ring-1 ring-slate-200">
          <h1 className="mb-1 text-lg font-semibold">Sign in</h1>
          <p className="mb-5 text-sm text-slate-600">Find, publish and subscribe to your organisation&apos;s data products.</p>
          <SignInForm callbackUrl={callbackUrl} initialError={error} sso={oidcEnabled(e) ? { id: "oidc", name: e.OIDC_NAME } : null} />
        </div>
        {e.KAPPA_DEMO_MODE && (
          <div className="mt-6 rounded-lg bg-white p-4 text-sm shadow-sm ring-1 ring-slate-200">
            <h2 className="font-medium">Demo accounts</h2>
            <p className="mt-1 text-slate-600">
              Password for all: <code className="rounded bg-slate-100 px-1">kappa-demo</code>
            </p>
            <ul className="mt-2 space-y-1">
              {DEMO_ACCOUNTS.map(([email, role]) => (
                <li key={email}>
                  <code className="rounded bg-slate-100 px-1">{email}</code> <span className="text-slate-500">— {role}</span>
                </li>
              ))}
            </ul>
          </div>
        )}
      </div>
    </main>
  );
}

/**
 * A valid session for an existing user; a stale one (user deleted) counts as
 * signed out, and so does a database that cannot be reached: the form still
 * renders (and says so when it is used) instead of an error page.
 */
async function signedIn(): Promise<boolean> {
  try {
    await currentActor();
    return true;
  } catch (error) {
    if (!(error instanceof UnauthenticatedError)) console.error("[signin] could not read the session's user", error);
    return false;
  }
}
