import { describe, expect, it } from "vitest";
import { RegistryError } from "@kappa/catalog";
import { MAX_BODY_BYTES } from "@/lib/request-guard";
import { readRegistryBody } from "./schema-registry";

/*
 * Issue 8, finding 8 on the Schema Registry API: its bodies are bounded like
 * every other API body. The guard refuses a declared Content-Length over the
 * limit; a chunked upload has none, so the read itself stops at the limit.
 */
function streamed(bytes: number): Request {
  let sent = 0;
  const chunk = new Uint8Array(64 * 1024).fill(0x20);
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= bytes) return controller.close();
      sent += chunk.byteLength;
      controller.enqueue(chunk);
    },
  });
  return new Request("http://localhost/api/schema-registry/subjects/x-value/versions", { method: "POST", body, duplex: "half" } as RequestInit);
}

describe("readRegistryBody", () => {
  it("refuses a streamed body over 1 MiB with the registry's 413, reading no further than the limit", async () => {
    const error = await readRegistryBody(streamed(8 * MAX_BODY_BYTES)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RegistryError);
    expect(error).toMatchObject({ status: 413, errorCode: 413 });
  });

  it("reads a body under the limit as JSON", async () => {
    const request = new Request("http://localhost/x", { method: "POST", body: JSON.stringify({ schema: "\"string\"" }) });
    await expect(readRegistryBody(request)).resolves.toEqual({ schema: "\"string\"" });
  });
});
