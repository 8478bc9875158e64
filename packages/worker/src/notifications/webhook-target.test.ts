import { describe, expect, it } from "vitest";
import { isPrivateAddress, resolveWebhookTarget } from "./webhook-target.ts";

describe("webhook targets", () => {
  it("classifies private, loopback, link-local and mapped addresses", () => {
    for (const a of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "::1", "fe80::1", "fd00::1", "::ffff:127.0.0.1", "::"]) {
      expect(isPrivateAddress(a), a).toBe(true);
    }
    for (const a of ["93.184.216.34", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8"]) expect(isPrivateAddress(a), a).toBe(false);
    expect(isPrivateAddress("not an ip")).toBe(true);
  });

  it("refuses a loopback URL unless private targets are allowed, and pins the address", async () => {
    await expect(resolveWebhookTarget("http://127.0.0.1:9/hook", false)).rejects.toThrow(/private or loopback/);
    await expect(resolveWebhookTarget("http://[::1]:9/hook", false)).rejects.toThrow(/private or loopback/);
    await expect(resolveWebhookTarget("http://localhost:9/hook", false)).rejects.toThrow(/private or loopback/);
    expect(await resolveWebhookTarget("http://127.0.0.1:9/hook", true)).toMatchObject({ address: "127.0.0.1", family: 4 });
  });
});
