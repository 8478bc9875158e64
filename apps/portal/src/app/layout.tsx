import type { Metadata } from "next";
import { cookies } from "next/headers";
import type { ReactNode } from "react";
import { parseTheme, THEME_COOKIE } from "@/lib/theme";
import "./globals.css";

// Every HTML response carries a fresh CSP nonce (src/proxy.ts), which Next can
// only apply while rendering per request: no page is prerendered.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Kappa Mesh", template: "%s · Kappa Mesh" },
  description: "Self-serve streaming data mesh: publish, review and subscribe to data products.",
};

export default async function RootLayout({ children }: { children: ReactNode }) {
  // A picked theme is a class the server renders; "system" leaves it to the CSS media query.
  const theme = parseTheme((await cookies()).get(THEME_COOKIE)?.value);
  return (
    <html lang="en" className={theme === "system" ? undefined : theme}>
      <body className="min-h-screen font-sans">
        {/* TanStack Query's provider is in the signed-in layout: the sign-in page and the API reference do not load it. */}
        {children}
      </body>
    </html>
  );
}
