import { describe, expect, it } from "vitest";
import { javaHashMapOrder, javaStringHash } from "./java-hash-order.ts";

// Expected orders printed by a java.util.HashMap<String, Boolean> (JDK 17) filled in the same order.
describe("javaHashMapOrder", () => {
  it("hashes as String.hashCode does", () => {
    expect(javaStringHash("")).toBe(0);
    expect(javaStringHash("PLAIN")).toBe(76210602);
    expect(javaStringHash("a much longer string that overflows 32 bits")).toBe(-1120268821);
  });

  it("orders by bucket, then by insertion within a bucket", () => {
    // PLAIN and SCRAM-SHA-512 share a bucket: the insertion order decides between them.
    expect(javaHashMapOrder(["SCRAM-SHA-256", "SCRAM-SHA-512", "PLAIN"])).toEqual(["SCRAM-SHA-512", "PLAIN", "SCRAM-SHA-256"]);
    expect(javaHashMapOrder(["PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512"])).toEqual(["PLAIN", "SCRAM-SHA-512", "SCRAM-SHA-256"]);
    expect(javaHashMapOrder(["carol-a0ba8a21", "twice", "alice", "twice"])).toEqual(["twice", "alice", "carol-a0ba8a21"]);
  });

  it("grows the table as HashMap does (32 keys: capacity 64), non-ASCII keys included", () => {
    const keys = [...Array.from({ length: 30 }, (_, i) => `user-${i}`), "kafka-admin", "é-ü"];
    expect(javaHashMapOrder(keys)).toEqual(
      "user-1 user-0 user-19 user-17 user-18 user-5 user-11 user-4 user-12 user-3 user-2 user-10 é-ü user-9 user-15 user-8 user-16 user-7 user-13 user-6 user-14 kafka-admin user-28 user-29 user-22 user-23 user-20 user-21 user-26 user-27 user-24 user-25".split(" "),
    );
  });
});
