import { describe, expect, it } from "vitest";
import { kafkaUuid } from "./cluster.ts";

describe("kafkaUuid", () => {
  it("is 22 base64url characters and never starts with '-' (the storage formatter would read it as an option)", () => {
    for (let i = 0; i < 5_000; i++) {
      const id = kafkaUuid();
      expect(id).toMatch(/^[A-Za-z0-9_][A-Za-z0-9_-]{21}$/);
    }
  });
});
