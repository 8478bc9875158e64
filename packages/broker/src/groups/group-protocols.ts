// Protocol bookkeeping of a classic group (Kafka's ClassicGroup.supportsProtocols /
// selectProtocol): which protocols every member supports, and the vote that picks one.

export interface Protocol {
  name: string;
  metadata: Buffer;
}

const EMPTY = Buffer.alloc(0);

/** Protocols every member supports (by name), in the first member's order of preference. */
export function candidateProtocols(members: ReadonlyArray<{ protocols: readonly Protocol[] }>): Set<string> {
  const first = members[0];
  if (!first) return new Set<string>();
  const names = first.protocols.map((p) => p.name);
  return new Set(names.filter((name) => members.every((m) => m.protocols.some((p) => p.name === name))));
}

/**
 * May a member with these protocols join? The type must match the group's and at
 * least one of its protocols must be supported by every current member.
 */
export function supportsProtocols(
  groupProtocolType: string | null,
  members: ReadonlyArray<{ protocols: readonly Protocol[] }>,
  protocolType: string,
  protocols: readonly Protocol[],
): boolean {
  if (protocolType === "" || protocols.length === 0) return false;
  if (members.length === 0) return true;
  if (protocolType !== groupProtocolType) return false;
  const candidates = candidateProtocols(members);
  return protocols.some((p) => candidates.has(p.name));
}

/** Kafka's vote: each member votes for its most preferred candidate protocol; most votes wins. */
export function selectProtocol(members: ReadonlyArray<{ protocols: readonly Protocol[] }>): string {
  const candidates = candidateProtocols(members);
  const votes = new Map<string, number>();
  for (const m of members) {
    const choice = m.protocols.find((p) => candidates.has(p.name));
    if (choice) votes.set(choice.name, (votes.get(choice.name) ?? 0) + 1);
  }
  let best = "";
  let bestVotes = -1;
  for (const [name, n] of votes) {
    if (n > bestVotes) {
      best = name;
      bestVotes = n;
    }
  }
  return best;
}

export function sameProtocols(a: readonly Protocol[], b: readonly Protocol[]): boolean {
  return a.length === b.length && a.every((p, i) => p.name === b[i]?.name && p.metadata.equals(b[i]?.metadata ?? EMPTY));
}
