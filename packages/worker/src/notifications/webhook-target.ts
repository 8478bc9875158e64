/*
 * Where a webhook may go. Endpoints are typed in by domain owners, so a URL
 * is hostile input: without a check, "http://169.254.169.254/…" or
 * "http://127.0.0.1:5432" would turn the worker into a proxy into the
 * platform's own network (SSRF). The host is resolved once, every address is
 * checked, and the request is pinned to the checked address so a second DNS
 * answer (rebinding) cannot swap it.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";

/*
 * One list for both families. Node's BlockList applies the IPv4 rules to
 * IPv4-mapped IPv6 addresses (::ffff:a.b.c.d, also written ::ffff:7f00:1),
 * so a mapped public address passes and a mapped private one does not.
 * Every range that is not plain global unicast is refused: besides the
 * loopback, private, link-local and unique-local ones, the IPv6 ranges that
 * embed or translate an IPv4 address (IPv4-compatible ::/96, SIIT
 * ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and 64:ff9b:1::/48, 6to4 2002::/16,
 * Teredo in 2001::/23) — a gateway would carry them to any IPv4 address,
 * 127.0.0.1 included — and the deprecated site-local fec0::/10.
 */
const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8], // "this network"
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // carrier-grade NAT
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local (cloud metadata)
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24], // documentation
  ["203.0.113.0", 24], // documentation
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, broadcast
] as const) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 96], // unspecified, loopback and IPv4-compatible (::127.0.0.1)
  ["::ffff:0:0:0", 96], // IPv4-translated (SIIT): ::ffff:0:7f00:1
  ["64:ff9b::", 96], // NAT64
  ["64:ff9b:1::", 48], // local-use NAT64
  ["100::", 64], // discard
  ["2001::", 23], // IETF protocol assignments, Teredo (2001::/32)
  ["2001:db8::", 32], // documentation
  ["2002::", 16], // 6to4
  ["3fff::", 20], // documentation
  ["5f00::", 16], // segment routing
  ["fc00::", 7], // unique local
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
] as const) blocked.addSubnet(net, prefix, "ipv6");

/** Anything but plain global unicast: loopback, private, link-local, unique-local, translated, multicast, reserved; and what is not an IP address. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) return blocked.check(address, "ipv6");
  return true;
}

export class WebhookTargetError extends Error {
  override name = "WebhookTargetError";
}

export interface ResolvedTarget {
  url: URL;
  address: string;
  family: 4 | 6;
}

/**
 * Resolves the endpoint's host; refuses private targets unless allowed. Every
 * answer is checked (one private answer refuses the host), and the caller
 * connects to the returned address only (postJson pins it), so what was
 * checked is what is reached.
 */
export async function resolveWebhookTarget(raw: string, allowPrivate: boolean): Promise<ResolvedTarget> {
  const url = new URL(raw);
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new WebhookTargetError(`unsupported scheme ${url.protocol}`);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const answers = isIP(host) ? [{ address: host, family: isIP(host) }] : await lookup(host, { all: true, verbatim: true });
  if (answers.length === 0) throw new WebhookTargetError(`${host} does not resolve`);
  if (!allowPrivate) {
    const bad = answers.find((a) => isPrivateAddress(a.address));
    if (bad) throw new WebhookTargetError(`${host} resolves to ${bad.address}, a private or loopback address; refused (WORKER_WEBHOOK_ALLOW_PRIVATE=false)`);
  }
  const first = answers[0]!;
  return { url, address: first.address, family: first.family === 6 ? 6 : 4 };
}
