import path from "node:path";
import { z } from "zod";

/**
 * Start-up configuration, parsed once. A bad value stops start-up with a
 * message naming the variable. Defaults give the embedded, demo setup.
 */
const schema = z
  .object({
    DATABASE_URL: z
      .string()
      .url("must be a postgresql:// connection URL")
      .refine((v) => /^postgres(ql)?:\/\//.test(v), "must start with postgresql://")
      .optional(),
    KAPPA_DATA_DIR: z.string().min(1).default(".data"),
    PORT: z.coerce.number().int().min(1).max(65535).default(3000),
    KAPPA_PG_PORT: z.coerce.number().int().min(1).max(65535).default(55432),
    NEXTAUTH_SECRET: z.string().min(32, "must be at least 32 characters").optional(),
    NEXTAUTH_URL: z.string().url("must be the portal's public URL, e.g. http://localhost:3000").optional(),
    KAPPA_DEMO_MODE: z.enum(["true", "false"], { message: "must be true or false" }).optional(),
  })
  .transform((env) => ({
    ...env,
    dataDir: path.resolve(env.KAPPA_DATA_DIR),
    // Demo mode (demo users and data) is the default only for the embedded database.
    demoMode: env.KAPPA_DEMO_MODE ? env.KAPPA_DEMO_MODE === "true" : env.DATABASE_URL === undefined,
    portalUrl: env.NEXTAUTH_URL ?? `http://localhost:${env.PORT}`,
  }));

export type StartConfig = z.output<typeof schema>;

export function parseStartConfig(source: NodeJS.ProcessEnv): StartConfig {
  // Empty strings (e.g. `DATABASE_URL=` in a .env) mean "not set".
  const cleaned = Object.fromEntries(Object.entries(source).filter(([, v]) => v !== undefined && v !== ""));
  const result = schema.safeParse(cleaned);
  if (!result.success) {
    const lines = result.error.issues.map((i) => `  ${i.path.join(".") || "(config)"}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join("\n")}`);
  }
  return result.data;
}
