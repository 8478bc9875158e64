// In-memory ACL index. An authorization looks at exactly the ACLs that can
// apply to the request, never at all of them: ACLs are grouped by resource type,
// then by pattern (LITERAL name, or PREFIXED prefix), then by principal. For a
// resource name the candidate patterns are the literal name, the literal `*`,
// and the prefixes of the name whose length some PREFIXED pattern of that type
// has (a per-type count of prefix lengths keeps that to a few map lookups even
// with tens of thousands of prefixes). Within a pattern only the principal's
// own ACLs and `User:*`'s are read.
//
// DescribeAcls and DeleteAcls filters are answered from the same maps: a filter
// naming a resource type and name reads that name's patterns only, one naming
// a principal reads that principal's ACLs only (a second index), and only a
// filter naming neither walks every ACL. The candidates are then checked with
// Kafka's filter semantics (filterMatches), so the index only narrows.
import { AclResourceType, bindingKey, filterMatches, PatternType, WILDCARD, WILDCARD_PRINCIPAL, type AclBinding, type AclFilter } from "./types.ts";

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
  private readonly byPrincipal = new Map<string, Set<AclBinding>>();

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
    const own = this.byPrincipal.get(b.principal);
    if (own) own.add(b);
    else this.byPrincipal.set(b.principal, new Set([b]));
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
    const own = this.byPrincipal.get(b.principal);
    own?.delete(stored);
    if (own?.size === 0) this.byPrincipal.delete(b.principal);
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

  /** Every stored ACL `filter` matches (DescribeAcls, DeleteAcls), in the order of the narrowest index that applies. */
  *matching(filter: AclFilter): Generator<AclBinding> {
    for (const b of this.candidates(filter)) if (filterMatches(filter, b)) yield b;
  }

  /** A superset of the ACLs `filter` can match, from the narrowest index that applies. */
  private *candidates(f: AclFilter): Generator<AclBinding> {
    if (f.resourceName !== null && f.patternType !== PatternType.UNKNOWN) {
      const types = f.resourceType === AclResourceType.ANY ? [...this.byType.keys()] : [f.resourceType];
      for (const type of types) {
        const t = this.byType.get(type);
        if (!t) continue;
        const entries: PatternEntry[] = [];
        if (f.patternType === PatternType.MATCH) {
          this.forEachMatchingPattern(type, f.resourceName, (e) => {
            entries.push(e);
            return false;
          });
        } else {
          if (f.patternType === PatternType.ANY || f.patternType === PatternType.LITERAL) {
            const e = t.literal.get(f.resourceName);
            if (e) entries.push(e);
          }
          if (f.patternType === PatternType.ANY || f.patternType === PatternType.PREFIXED) {
            const e = t.prefixed.get(f.resourceName);
            if (e) entries.push(e);
          }
        }
        for (const e of entries) {
          if (f.principal !== null) yield* e.byPrincipal.get(f.principal) ?? [];
          else for (const list of e.byPrincipal.values()) yield* list;
        }
      }
      return;
    }
    if (f.principal !== null) {
      yield* this.byPrincipal.get(f.principal) ?? [];
      return;
    }
    yield* this.byKey.values();
  }
}
