// The client side of a SCRAM exchange, for tests: the client-final message for a
// password, given the client-first-bare and the server-first (optionally with a
// different nonce in r=, to imitate clients that get it wrong).
import { pbkdf2Sync } from "node:crypto";
import { clientProof, type ScramMechanism } from "./scram.ts";

export function scramProofFor(mech: ScramMechanism, password: string, clientFirstBare: string, serverFirst: string, nonceOverride?: string): string {
  const attrs = new Map(serverFirst.split(",").map((kv) => [kv.slice(0, 1), kv.slice(2)]));
  const salted = pbkdf2Sync(password, Buffer.from(attrs.get("s") ?? "", "base64"), Number(attrs.get("i")), mech.keyLength, mech.hash);
  const withoutProof = `c=biws,r=${nonceOverride ?? attrs.get("r") ?? ""}`;
  return `${withoutProof},p=${clientProof(mech, salted, `${clientFirstBare},${serverFirst},${withoutProof}`).toString("base64")}`;
}
