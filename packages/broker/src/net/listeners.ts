// Listeners in Kafka's syntax: `listeners=SASL_PLAINTEXT://127.0.0.1:9092,PLAINTEXT://:9093`
// with `listener.security.protocol.map` naming each listener's security protocol
// (by default the four standard names map to themselves) and
// `advertised.listeners` giving the address clients are told for a listener.
// An empty host binds every interface.

export const SECURITY_PROTOCOLS = ["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] as const;
export type SecurityProtocol = (typeof SECURITY_PROTOCOLS)[number];

/** Kafka's default listener.security.protocol.map (the standard names). */
export const DEFAULT_PROTOCOL_MAP = "PLAINTEXT:PLAINTEXT,SSL:SSL,SASL_PLAINTEXT:SASL_PLAINTEXT,SASL_SSL:SASL_SSL";

export interface ListenerSpec {
  /** Listener name, upper case (e.g. SASL_PLAINTEXT, or a custom name from the protocol map). */
  name: string;
  securityProtocol: SecurityProtocol;
  /** Bind address; "0.0.0.0" when the listener gave none. */
  host: string;
  /** 0 = ephemeral (tests). */
  port: number;
}

/** A bound listener and what clients that connect through it are told. */
export interface ListenerEndpoint extends ListenerSpec {
  boundPort: number;
  advertisedHost: string;
  advertisedPort: number;
}

export class ListenerConfigError extends Error {
  override name = "ListenerConfigError";
}

export function usesSasl(p: SecurityProtocol): boolean {
  return p === "SASL_PLAINTEXT" || p === "SASL_SSL";
}

export function usesTls(p: SecurityProtocol): boolean {
  return p === "SSL" || p === "SASL_SSL";
}

function isProtocol(s: string): s is SecurityProtocol {
  return (SECURITY_PROTOCOLS as readonly string[]).includes(s);
}

export function parseProtocolMap(value: string): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of value.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const [name, proto, ...rest] = entry.split(":");
    const p = proto?.trim().toUpperCase() ?? "";
    if (!name || rest.length > 0 || !isProtocol(p)) {
      throw new ListenerConfigError(`listener.security.protocol.map entries must look like NAME:PROTOCOL with PROTOCOL one of ${SECURITY_PROTOCOLS.join(", ")}, got "${entry}"`);
    }
    map.set(name.trim().toUpperCase(), p);
  }
  return map;
}

const ENTRY = /^([A-Za-z0-9_]+):\/\/(\[[^\]]*\]|[^:/]*):(\d+)$/;

/** Parses `listeners` or `advertised.listeners`; names and ports must be unique, as Kafka requires. */
export function parseListeners(setting: string, value: string, protocolMap: Map<string, SecurityProtocol>): ListenerSpec[] {
  const out: ListenerSpec[] = [];
  for (const entry of value.split(",").map((e) => e.trim()).filter((e) => e !== "")) {
    const m = ENTRY.exec(entry);
    if (!m || m[1] === undefined || m[2] === undefined || m[3] === undefined) {
      throw new ListenerConfigError(`${setting} entries must look like NAME://host:port, got "${entry}"`);
    }
    const name = m[1].toUpperCase();
    const securityProtocol = protocolMap.get(name);
    if (!securityProtocol) throw new ListenerConfigError(`${setting}: listener name ${name} is not in listener.security.protocol.map`);
    const port = Number(m[3]);
    if (port > 65535) throw new ListenerConfigError(`${setting}: port ${port} out of range in "${entry}"`);
    const rawHost = m[2].startsWith("[") ? m[2].slice(1, -1) : m[2];
    if (out.some((l) => l.name === name)) throw new ListenerConfigError(`${setting}: listener name ${name} appears more than once`);
    if (setting === "listeners" && port !== 0 && out.some((l) => l.port === port)) throw new ListenerConfigError(`${setting}: port ${port} is used by more than one listener`);
    out.push({ name, securityProtocol, host: rawHost === "" ? "0.0.0.0" : rawHost, port });
  }
  if (out.length === 0) throw new ListenerConfigError(`${setting} must name at least one listener`);
  return out;
}
