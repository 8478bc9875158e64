// Kafka's StandardAuthorizer semantics (BROKER-SPEC §5 "How an action is
// authorized"; [AK] StandardAuthorizerData.authorize / findAclRule / findResult):
//  1. principals in `super.users` are always allowed;
//  2. the ACLs considered are those of the same resource type whose pattern
//     applies to the name (LITERAL exact, LITERAL `*`, PREFIXED prefix of the
//     name), held by the principal or `User:*`, for the client's host or `*`;
//  3. an ACL's operation matches when equal or ALL; ALLOW ACLs (only) for READ,
//     WRITE, DELETE, ALTER also grant DESCRIBE, and ALTER_CONFIGS grants
//     DESCRIBE_CONFIGS;
//  4. any matching DENY denies; else any ALLOW allows; else, if any ACL at all
//     (any principal) exists on an applicable pattern, deny; else
//     `allow.everyone.if.no.acl.found` decides.
// Every request reads the live index: a grant or revoke applies to the next
// request of every open connection, nothing is cached per connection.
import type { AclOperation, Authorizer, Resource, ResourceType, Session } from "../../session.ts";
import { AclIndex, type PatternEntry } from "./acl-index.ts";
import { AclStore } from "./acl-store.ts";
import {
  AclOperationCode,
  bindingKey,
  operationCode,
  PatternType,
  Permission,
  resourceTypeCode,
  WILDCARD,
  WILDCARD_PRINCIPAL,
  type AclBinding,
  type AclFilter,
} from "./types.ts";

const IMPLIES_DESCRIBE = new Set<number>([AclOperationCode.DESCRIBE, AclOperationCode.READ, AclOperationCode.WRITE, AclOperationCode.DELETE, AclOperationCode.ALTER]);
const IMPLIES_DESCRIBE_CONFIGS = new Set<number>([AclOperationCode.DESCRIBE_CONFIGS, AclOperationCode.ALTER_CONFIGS]);

export interface StandardAuthorizerOptions {
  /** `super.users` entries, e.g. ["User:admin"]. */
  superUsers: readonly string[];
  allowEveryoneIfNoAclFound: boolean;
  /** Folder for the durable ACL journal; null keeps ACLs in memory only (unit tests). */
  dir: string | null;
  /** Journal size that triggers a snapshot (tests lower it). */
  snapshotAfterBytes?: number;
}

/** Kafka compares hosts as InetAddress.getHostAddress: an IPv4-mapped IPv6 client is its IPv4 address. */
export function normalizeHost(address: string): string {
  const m = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  return m?.[1] ?? address;
}

/** Parses Kafka's `super.users` value: principals separated by semicolons. */
export function parseSuperUsers(value: string | null): string[] {
  if (value === null) return [];
  return value
    .split(";")
    .map((s) => s.trim())
    .filter((s) => s !== "");
}

export interface DeleteResult {
  /** null when the filter was valid; otherwise the INVALID_REQUEST message. */
  problem: string | null;
  deleted: AclBinding[];
}

export class StandardAuthorizer implements Authorizer {
  private readonly index = new AclIndex();
  private readonly superUsers: ReadonlySet<string>;
  private readonly store: AclStore | null;
  readonly allowEveryoneIfNoAclFound: boolean;

  constructor(options: StandardAuthorizerOptions) {
    this.superUsers = new Set(options.superUsers);
    this.allowEveryoneIfNoAclFound = options.allowEveryoneIfNoAclFound;
    this.store = options.dir === null ? null : AclStore.openSync(options.dir, (c) => this.applyChange(c.op, c.acls), options.snapshotAfterBytes);
  }

  get aclCount(): number {
    return this.index.size;
  }

  isSuperUser(principal: string): boolean {
    return this.superUsers.has(principal);
  }

  authorize(session: Session, operation: AclOperation, resource: Resource): boolean {
    return this.authorizeCodes(session.principal, normalizeHost(session.clientAddress), operationCode(operation), resourceTypeCode(resource.type), resource.name);
  }

  /** The decision for wire codes; exported for DescribeGroups/Metadata authorized-operations bitfields and tests. */
  authorizeCodes(principal: string, host: string, op: number, resourceType: number, name: string): boolean {
    if (this.superUsers.has(principal)) return true;
    let allowed = false;
    let denied = false;
    let hasResourceAcls = false;
    const check = (acl: AclBinding): void => {
      if (acl.host !== WILDCARD && acl.host !== host) return;
      if (acl.operation !== AclOperationCode.ALL) {
        if (acl.permission === Permission.ALLOW) {
          if (op === AclOperationCode.DESCRIBE) {
            if (!IMPLIES_DESCRIBE.has(acl.operation)) return;
          } else if (op === AclOperationCode.DESCRIBE_CONFIGS) {
            if (!IMPLIES_DESCRIBE_CONFIGS.has(acl.operation)) return;
          } else if (acl.operation !== op) return;
        } else if (acl.operation !== op) return;
      }
      if (acl.permission === Permission.DENY) denied = true;
      else allowed = true;
    };
    this.index.forEachMatchingPattern(resourceType, name, (entry: PatternEntry) => {
      hasResourceAcls = true;
      for (const acl of entry.byPrincipal.get(principal) ?? []) {
        check(acl);
        if (denied) return true;
      }
      if (principal !== WILDCARD_PRINCIPAL) {
        for (const acl of entry.byPrincipal.get(WILDCARD_PRINCIPAL) ?? []) {
          check(acl);
          if (denied) return true;
        }
      }
      return false;
    });
    if (denied) return false;
    if (allowed) return true;
    return hasResourceAcls ? false : this.allowEveryoneIfNoAclFound;
  }

  /**
   * Kafka's Authorizer.authorizeByResourceType (KIP-679; used by InitProducerId:
   * "WRITE on any topic"): allowed when an ALLOW for the operation on some
   * pattern of the type is not dominated by a DENY (a literal DENY on the same
   * name, a prefixed DENY on a prefix of it, or a DENY on `*`). First asks the
   * ordinary question for a made-up name, so super users and
   * allow.everyone.if.no.acl.found behave as in Kafka.
   */
  authorizeByResourceType(session: Session, operation: AclOperation, type: ResourceType): boolean {
    const principal = session.principal;
    const host = normalizeHost(session.clientAddress);
    const op = operationCode(operation);
    const typeCode = resourceTypeCode(type);
    if (this.authorizeCodes(principal, host, op, typeCode, "hardcode")) return true;
    const denyLiteral = new Set<string>();
    const denyPrefixed = new Set<string>();
    const allowLiteral = new Set<string>();
    const allowPrefixed = new Set<string>();
    let wildcardAllow = false;
    for (const acl of this.index.ofTypeForPrincipal(typeCode, principal)) {
      if (acl.host !== WILDCARD && acl.host !== host) continue;
      if (acl.operation !== op && acl.operation !== AclOperationCode.ALL) continue;
      const literal = acl.patternType === PatternType.LITERAL;
      if (acl.permission === Permission.DENY) {
        if (literal && acl.resourceName === WILDCARD) return false;
        (literal ? denyLiteral : denyPrefixed).add(acl.resourceName);
      } else if (literal && acl.resourceName === WILDCARD) wildcardAllow = true;
      else (literal ? allowLiteral : allowPrefixed).add(acl.resourceName);
    }
    if (wildcardAllow) return true;
    const dominatedByPrefixDeny = (name: string): boolean => {
      for (let i = 1; i <= name.length; i++) if (denyPrefixed.has(name.slice(0, i))) return true;
      return false;
    };
    for (const name of allowLiteral) if (!denyLiteral.has(name) && !dominatedByPrefixDeny(name)) return true;
    for (const name of allowPrefixed) if (!dominatedByPrefixDeny(name)) return true;
    return false;
  }

  /** DescribeAcls: every stored ACL the filter matches. */
  acls(filter: AclFilter): AclBinding[] {
    return [...this.index.matching(filter)];
  }

  /**
   * CreateAcls for already-validated bindings: stores the new ones durably, then
   * makes them effective. ACLs that already exist succeed without being stored twice.
   */
  async createAcls(bindings: readonly AclBinding[]): Promise<void> {
    const seen = new Set<string>();
    const fresh = bindings.filter((b) => {
      const k = bindingKey(b);
      if (seen.has(k) || this.index.has(b)) return false;
      seen.add(k);
      return true;
    });
    if (fresh.length === 0) return;
    await this.commit("create", fresh);
  }

  /**
   * DeleteAcls: for each filter (invalid ones get their problem and delete
   * nothing), the ACLs it matches; an ACL matched by several filters is
   * reported under the first, as Kafka's AclControlManager does.
   */
  async deleteAcls(filters: ReadonlyArray<{ filter: AclFilter; problem: string | null }>): Promise<DeleteResult[]> {
    const taken = new Set<string>();
    const results: DeleteResult[] = filters.map(({ filter, problem }) => {
      if (problem !== null) return { problem, deleted: [] };
      const deleted: AclBinding[] = [];
      for (const b of this.index.matching(filter)) {
        const k = bindingKey(b);
        if (taken.has(k)) continue;
        taken.add(k);
        deleted.push(b);
      }
      return { problem: null, deleted };
    });
    const all = results.flatMap((r) => r.deleted);
    if (all.length > 0) await this.commit("delete", all);
    return results;
  }

  private async commit(op: "create" | "delete", acls: AclBinding[]): Promise<void> {
    const apply = (): void => this.applyChange(op, acls);
    if (this.store) await this.store.append({ op, acls }, apply, () => [...this.index.all()]);
    else apply();
  }

  private applyChange(op: "create" | "delete", acls: readonly AclBinding[]): void {
    if (op === "create") for (const b of acls) this.index.add(b);
    else for (const b of acls) this.index.remove(b);
  }

  /** Waits for ACL writes in progress. */
  async flush(): Promise<void> {
    await this.store?.flush();
  }
}
