// Per-connection security context and the authorization seam.
//
// Part 1 of the broker has no authentication: every connection is the Kafka
// principal `User:ANONYMOUS` and `authorize` allows everything. Part 2 (SASL and
// ACLs) replaces `Authorizer` and fills `principal` after SaslAuthenticate; the
// handlers already ask `authorize(...)` with the operation and resource Kafka
// checks for each request (BROKER-SPEC §5), so enforcing ACLs is a change in one
// place rather than in every handler.

export const ANONYMOUS = "User:ANONYMOUS";

export type SessionState =
  /** Plaintext listener, or SASL finished: every API may be used. */
  | "ready"
  /** SASL listener before authentication: only ApiVersions/SaslHandshake/SaslAuthenticate (enforced by the gate). */
  | "authenticating";

export interface Session {
  readonly connectionId: number;
  readonly clientAddress: string;
  readonly clientPort: number;
  /** client_id of the latest request header ("" for null). */
  clientId: string;
  /** Kafka principal, `User:<name>`. */
  principal: string;
  state: SessionState;
  /** SASL mechanism chosen by SaslHandshake, for part 2. */
  saslMechanism: string | null;
  /**
   * SaslHandshake v0 was accepted: until authentication completes, frames are
   * raw SASL tokens (size-prefixed, no Kafka header) answered the same way.
   */
  rawSaslTokens?: boolean;
}

export type AclOperation =
  | "READ"
  | "WRITE"
  | "CREATE"
  | "DELETE"
  | "ALTER"
  | "DESCRIBE"
  | "CLUSTER_ACTION"
  | "DESCRIBE_CONFIGS"
  | "ALTER_CONFIGS"
  | "IDEMPOTENT_WRITE";

export type ResourceType = "TOPIC" | "GROUP" | "CLUSTER" | "TRANSACTIONAL_ID";

export interface Resource {
  type: ResourceType;
  /** `kafka-cluster` for CLUSTER. */
  name: string;
}

export const CLUSTER_RESOURCE: Resource = { type: "CLUSTER", name: "kafka-cluster" };

export interface Authorizer {
  authorize(session: Session, operation: AclOperation, resource: Resource): boolean;
}

/** No authorizer configured: Kafka allows everything (and ACL APIs answer SECURITY_DISABLED). */
export const allowAllAuthorizer: Authorizer = {
  authorize: () => true,
};

/**
 * Decides, before a request is decoded, whether this connection may use the API at
 * all. Part 2's SASL gate closes connections that send anything but ApiVersions,
 * SaslHandshake and SaslAuthenticate before authenticating, as Kafka does.
 */
export type ConnectionGate = (session: Session, apiKey: number) => "allow" | "close";

export const openGate: ConnectionGate = () => "allow";
