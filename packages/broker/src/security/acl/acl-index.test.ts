import { describe, expect, it } from "vitest";
import { AclIndex } from "./acl-index.ts";
import { AclOperationCode, AclResourceType, bindingKey, filterMatches, PatternType, Permission, type AclBinding, type AclFilter } from "./types.ts";

// A small deterministic generator, so a failure is reproducible.
function random(seed: number): () => number {
  let s = seed;
  return () => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s / 2147483648;
  };
}

const NAMES = ["orders", "orders.v1", "ord", "payments", "*", "o", "pay"];
const PRINCIPALS = ["User:alice", "User:bob", "User:*"];
const pick = <T>(r: () => number, xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;

function bindings(r: () => number, n: number): AclBinding[] {
  return Array.from({ length: n }, () => ({
    resourceType: pick(r, [AclResourceType.TOPIC, AclResourceType.GROUP, AclResourceType.CLUSTER]),
    resourceName: pick(r, NAMES),
    patternType: pick(r, [PatternType.LITERAL, PatternType.PREFIXED]),
    principal: pick(r, PRINCIPALS),
    host: pick(r, ["*", "10.0.0.1"]),
    operation: pick(r, [AclOperationCode.READ, AclOperationCode.WRITE, AclOperationCode.DESCRIBE]),
    permission: pick(r, [Permission.ALLOW, Permission.DENY]),
  }));
}

function filters(r: () => number, n: number): AclFilter[] {
  return Array.from({ length: n }, () => ({
    resourceType: pick(r, [AclResourceType.ANY, AclResourceType.TOPIC, AclResourceType.GROUP, AclResourceType.CLUSTER]),
    resourceName: pick(r, [null, ...NAMES, "orders.v2", "paym"]),
    patternType: pick(r, [PatternType.ANY, PatternType.MATCH, PatternType.LITERAL, PatternType.PREFIXED]),
    principal: pick(r, [null, ...PRINCIPALS, "User:carol"]),
    host: pick(r, [null, "*"]),
    operation: pick(r, [AclOperationCode.ANY, AclOperationCode.READ]),
    permission: pick(r, [Permission.ANY, Permission.ALLOW]),
  }));
}

const keys = (xs: Iterable<AclBinding>) => [...xs].map(bindingKey).sort();

describe("AclIndex.matching", () => {
  it("finds exactly the ACLs Kafka's filter semantics match, through the resource and principal indexes", () => {
    const r = random(7);
    const index = new AclIndex();
    const stored = bindings(r, 400);
    for (const b of stored) index.add(b);
    // Some removed again: the principal index must forget them as the pattern maps do.
    for (const b of stored.slice(0, 120)) index.remove(b);
    const all = [...index.all()];
    let nonEmpty = 0;
    for (const f of filters(r, 600)) {
      const expected = keys(all.filter((b) => filterMatches(f, b)));
      if (expected.length > 0) nonEmpty++;
      expect(keys(index.matching(f)), JSON.stringify(f)).toEqual(expected);
    }
    // The comparison covered filters that match something, not only empty answers.
    expect(nonEmpty).toBeGreaterThan(100);
  });

  it("a principal's ACLs are gone from a principal filter once removed", () => {
    const index = new AclIndex();
    const b: AclBinding = { resourceType: AclResourceType.TOPIC, resourceName: "orders", patternType: PatternType.LITERAL, principal: "User:alice", host: "*", operation: AclOperationCode.READ, permission: Permission.ALLOW };
    const byPrincipal: AclFilter = { resourceType: AclResourceType.ANY, resourceName: null, patternType: PatternType.ANY, principal: "User:alice", host: null, operation: AclOperationCode.ANY, permission: Permission.ANY };
    index.add(b);
    expect([...index.matching(byPrincipal)]).toEqual([b]);
    index.remove({ ...b });
    expect([...index.matching(byPrincipal)]).toEqual([]);
  });
});
