import { describe, expect, it } from "vitest";
import { SignInThrottledError } from "@kappa/catalog";
import { registryError } from "./schema-registry";

/* Issue 30, finding 8: a throttled Basic login is Confluent's 429 / 42901 with Retry-After, not a 500. */

describe("Schema Registry: throttled Basic auth", () => {
  it("answers 429 with error_code 42901 and Retry-After", async () => {
    const response = registryError(new SignInThrottledError(15));
    expect(response.status).toBe(429);
    expect(response.headers.get("retry-after")).toBe("15");
    expect(await response.json()).toEqual({ error_code: 42901, message: expect.stringContaining("15 s") });
  });
});
