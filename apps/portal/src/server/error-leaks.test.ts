import { createServer } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

/*
 * Issue 8, finding 8: a database outage leaked Prisma's error text into the
 * sign-in redirect, and error bodies could carry internal messages. Here the
 * database really is unreachable (a port nobody listens on).
 */
let closedPort = 0;

beforeAll(async () => {
  closedPort = await new Promise<number>((resolve) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
  process.env.DATABASE_URL = `postgresql://kappa:secret-password@127.0.0.1:${closedPort}/kappa`;
  process.env.NEXTAUTH_SECRET = "a-test-secret-of-sufficient-length";
  process.env.NEXTAUTH_URL = "http://localhost:3000";
});
afterAll(async () => {
  const { db } = await import("./db");
  await db().$disconnect();
});

describe("no internal error text reaches a client", () => {
  it("sign-in with the database down says 'unavailable', nothing about the driver", async () => {
    const { authOptions, SIGN_IN_ERRORS } = await import("./auth");
    const provider = authOptions().providers[0];
    // next-auth keeps the options it was given (our authorize) on the provider.
    const options = provider && "options" in provider ? (provider.options as { authorize?: (c: Record<string, string>, req: { headers: Record<string, string> }) => Promise<unknown> }) : undefined;
    if (!options?.authorize) throw new Error("the credentials provider has no authorize()");
    const error = await options.authorize({ email: "owner@orders.example", password: "kappa-demo" }, { headers: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    // next-auth puts exactly this message into /signin?error=…
    expect((error as Error).message).toBe(SIGN_IN_ERRORS.unavailable);
  }, 30_000);

  it("an unexpected error is a 500 with a request id and a generic message", async () => {
    const { errorResponse } = await import("./http");
    const response = await errorResponse(new Error(`connect ECONNREFUSED 127.0.0.1:${closedPort} (PrismaClientKnownRequestError: secret-password)`));
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: { code: string; message: string; requestId: string } };
    expect(body.error.code).toBe("INTERNAL");
    expect(body.error.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(JSON.stringify(body)).not.toMatch(/ECONNREFUSED|Prisma|secret-password|127\.0\.0\.1/);
    expect(body.error.message).toContain(body.error.requestId);
  });
});
