import type { Metadata } from "next";
import type { ReactNode } from "react";
import { Providers } from "@/components/providers";
import "./globals.css";

// Every HTML response carries a fresh CSP nonce (src/proxy.ts), which Next can
// only apply while rendering per request: no page is prerendered.
export const dynamic = "force-dynamic";

export const metadata: Metadata = {
  title: { default: "Kappa Mesh", template: "%s · Kappa Mesh" },
  description: "Self-serve streaming data mesh: publish, review and subscribe to data products.",
};

export default function RootLayout({ children }: { children: ReactNode }) {
  return (
    <html lang="en">
      <body className="min-h-screen font-sans">
        <Providers>{children}</Providers>
      </body>
    </html>
  );
}
