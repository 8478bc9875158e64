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

const blocked = new BlockList();
for (const [net, prefix] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const) blocked.addSubnet(net, prefix, "ipv6");

/** Loopback, private, link-local, carrier-grade NAT, multicast or unspecified. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return blocked.check(address, "ipv4");
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1];
    if (mapped) return blocked.check(mapped, "ipv4");
    return blocked.check(address, "ipv6");
  }
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

/** Resolves the endpoint's host; refuses private targets unless allowed. */
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
