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

  it("refuses the translated and embedded IPv6 forms of private IPv4 addresses, and the other non-global IPv6 ranges (issue 30, finding 4)", async () => {
    const bypasses = {
      "[::127.0.0.1]": "IPv4-compatible loopback",
      "[::ffff:0:7f00:1]": "SIIT-translated loopback",
      "[::ffff:127.0.0.1]": "mapped loopback (the URL parser writes it ::ffff:7f00:1)",
      "[::ffff:a9fe:a9fe]": "mapped metadata address",
      "[64:ff9b::7f00:1]": "NAT64 of 127.0.0.1",
      "[64:ff9b::808:808]": "NAT64 of a public address: still a gateway",
      "[64:ff9b:1::a00:1]": "local-use NAT64",
      "[2002:7f00:1::1]": "6to4 of 127.0.0.1",
      "[2001:0:4136:e378:8000:63bf:3fff:fdd2]": "Teredo",
      "[fec0::1]": "site-local",
      "[fd12:3456::1]": "unique local",
      "[fe80::1]": "link-local",
      "[100::1]": "discard",
      "[::]": "unspecified",
    };
    for (const [host, what] of Object.entries(bypasses)) {
      await expect(resolveWebhookTarget(`http://${host}:9/hook`, false), `${host}: ${what}`).rejects.toThrow(/private or loopback/);
      expect(isPrivateAddress(new URL(`http://${host}/`).hostname.slice(1, -1)), `${host}: ${what}`).toBe(true);
    }
    for (const a of ["192.0.2.1", "198.51.100.7", "203.0.113.9", "192.88.99.1", "255.255.255.255", "2001:db8::1"]) expect(isPrivateAddress(a), a).toBe(true);
    // Global unicast passes, also written as a mapped address.
    for (const a of ["2a00:1450:4001:81a::200e", "2001:4860:4860::8888", "::ffff:808:808", "1.1.1.1"]) expect(isPrivateAddress(a), a).toBe(false);
    expect(await resolveWebhookTarget("http://[2001:4860:4860::8888]:443/hook", false)).toMatchObject({ address: "2001:4860:4860::8888", family: 6 });
  });
});
