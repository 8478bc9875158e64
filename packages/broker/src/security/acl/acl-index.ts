// In-memory ACL index. An authorization looks at exactly the ACLs that can
// apply to the request, never at all of them: ACLs are grouped by resource type,
// then by pattern (LITERAL name, or PREFIXED prefix), then by principal. For a
// resource name the candidate patterns are the literal name, the literal `*`,
// and the prefixes of the name whose length some PREFIXED pattern of that type
// has (a per-type count of prefix lengths keeps that to a few map lookups even
// with tens of thousands of prefixes). Within a pattern only the principal's
// own ACLs and `User:*`'s are read.
import { bindingKey, PatternType, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding } from "./types.ts";

export interface PatternEntry {
  /** principal → its ACLs on this pattern */
  readonly byPrincipal: Map<string, AclBinding[]>;
  size: number;
}

interface TypeIndex {
  readonly literal: Map<string, PatternEntry>;
  readonly prefixed: Map<string, PatternEntry>;
  /** prefix length → number of PREFIXED patterns of that length, ascending iteration not needed */
  readonly prefixLengths: Map<number, number>;
}

export class AclIndex {
  private readonly byType = new Map<number, TypeIndex>();
  private readonly byKey = new Map<string, AclBinding>();

  get size(): number {
    return this.byKey.size;
  }

  has(b: AclBinding): boolean {
    return this.byKey.has(bindingKey(b));
  }

  all(): IterableIterator<AclBinding> {
    return this.byKey.values();
  }

  /** Adds `b` unless an identical ACL exists; returns whether it was added. */
  add(b: AclBinding): boolean {
    const key = bindingKey(b);
    if (this.byKey.has(key)) return false;
    this.byKey.set(key, b);
    let t = this.byType.get(b.resourceType);
    if (!t) {
      t = { literal: new Map(), prefixed: new Map(), prefixLengths: new Map() };
      this.byType.set(b.resourceType, t);
    }
    const prefixed = b.patternType === PatternType.PREFIXED;
    const patterns = prefixed ? t.prefixed : t.literal;
    let entry = patterns.get(b.resourceName);
    if (!entry) {
      entry = { byPrincipal: new Map(), size: 0 };
      patterns.set(b.resourceName, entry);
      if (prefixed) t.prefixLengths.set(b.resourceName.length, (t.prefixLengths.get(b.resourceName.length) ?? 0) + 1);
    }
    const list = entry.byPrincipal.get(b.principal);
    if (list) list.push(b);
    else entry.byPrincipal.set(b.principal, [b]);
    entry.size++;
    return true;
  }

  /** Removes the ACL identical to `b`; returns the stored binding or null. */
  remove(b: AclBinding): AclBinding | null {
    const key = bindingKey(b);
    const stored = this.byKey.get(key);
    if (!stored) return null;
    this.byKey.delete(key);
    const t = this.byType.get(b.resourceType);
    const prefixed = b.patternType === PatternType.PREFIXED;
    const patterns = prefixed ? t?.prefixed : t?.literal;
    const entry = patterns?.get(b.resourceName);
    const list = entry?.byPrincipal.get(b.principal);
    if (!t || !patterns || !entry || !list) throw new Error(`ACL index out of step for ${key}`);
    list.splice(list.indexOf(stored), 1);
    if (list.length === 0) entry.byPrincipal.delete(b.principal);
    if (--entry.size === 0) {
      patterns.delete(b.resourceName);
      if (prefixed) {
        const n = (t.prefixLengths.get(b.resourceName.length) ?? 1) - 1;
        if (n === 0) t.prefixLengths.delete(b.resourceName.length);
        else t.prefixLengths.set(b.resourceName.length, n);
      }
    }
    return stored;
  }

  /**
   * Calls `visit` with every pattern entry of `resourceType` that applies to
   * `name` (literal name, literal `*`, PREFIXED prefixes of the name). Stops
   * early when `visit` returns true.
   */
  forEachMatchingPattern(resourceType: number, name: string, visit: (e: PatternEntry) => boolean): void {
    const t = this.byType.get(resourceType);
    if (!t) return;
    const exact = t.literal.get(name);
    if (exact && visit(exact)) return;
    if (name !== WILDCARD) {
      const wildcard = t.literal.get(WILDCARD);
      if (wildcard && visit(wildcard)) return;
    }
    for (const len of t.prefixLengths.keys()) {
      if (len > name.length) continue;
      const e = t.prefixed.get(len === name.length ? name : name.slice(0, len));
      if (e && visit(e)) return;
    }
  }

  /** The ACLs of `resourceType` (any pattern) held by `principal` or `User:*`; for authorizeByResourceType. */
  *ofTypeForPrincipal(resourceType: number, principal: string): Generator<AclBinding> {
    const t = this.byType.get(resourceType);
    if (!t) return;
    for (const patterns of [t.literal, t.prefixed]) {
      for (const e of patterns.values()) {
        yield* e.byPrincipal.get(principal) ?? [];
        if (principal !== WILDCARD_PRINCIPAL) yield* e.byPrincipal.get(WILDCARD_PRINCIPAL) ?? [];
      }
    }
  }
}
