import { cookies, headers } from "next/headers";
import type { ReactNode } from "react";
import { permissionSummary } from "@kappa/catalog";
import { ActorProvider } from "@/components/actor-context";
import { Nav } from "@/components/nav";
import { Providers } from "@/components/providers";
import { PATH_HEADER } from "@/lib/request-path";
import { parseTheme, THEME_COOKIE } from "@/lib/theme";
import { requireActor } from "@/server/actor";

// Every page here reads the session and the database per request.
export const dynamic = "force-dynamic";

export default async function SignedInLayout({ children }: { children: ReactNode }) {
  const actor = await requireActor((await headers()).get(PATH_HEADER) ?? undefined);
  const me = { ...actor, permissions: permissionSummary(actor) };
  // TanStack Query only where pages use it (not on the sign-in page).
  return (
    <Providers>
      <ActorProvider actor={me}>
        <a href="#main" className="sr-only focus:not-sr-only focus:absolute focus:left-2 focus:top-2 focus:z-50 focus:rounded focus:bg-white focus:px-3 focus:py-2">
          Skip to content
        </a>
        <Nav theme={parseTheme((await cookies()).get(THEME_COOKIE)?.value)} />
        <main id="main" className="mx-auto w-full max-w-6xl px-4 py-6 sm:px-6 lg:py-8">
          {children}
        </main>
      </ActorProvider>
    </Providers>
  );
}
