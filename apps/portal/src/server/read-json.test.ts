import { describe, expect, it } from "vitest";
import { readJson } from "./http";
import { readRegistryBody } from "./schema-registry";

/* Issue 30, finding 10: every JSON body is refused past 64 levels of nesting, before it is parsed or validated. */

const post = (body: string) => new Request("http://localhost/api/v1/x", { method: "POST", body, headers: { "content-type": "application/json" } });
const nested = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

describe("JSON bodies: nesting limit", () => {
  it("an API body nested 65 levels is a 400 naming the limit; 64 levels parse", async () => {
    await expect(readJson(post(nested(65)))).rejects.toMatchObject({ status: 400, code: "VALIDATION_FAILED", message: expect.stringContaining("nested more than 64 levels") });
    await expect(readJson(post(`[${"[".repeat(5000)}${"]".repeat(5000)}]`))).rejects.toMatchObject({ status: 400 });
    expect(await readJson(post(nested(64)))).toMatchObject({ a: { a: {} } });
    // Brackets inside strings are text, not nesting.
    expect(await readJson(post(JSON.stringify({ note: "[".repeat(500) })))).toEqual({ note: "[".repeat(500) });
  });

  it("a Schema Registry body nested 65 levels is Confluent's 400", async () => {
    await expect(readRegistryBody(post(nested(65)))).rejects.toMatchObject({ status: 400, message: expect.stringContaining("nested more than 64 levels") });
  });
});
