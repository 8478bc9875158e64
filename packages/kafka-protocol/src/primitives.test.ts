import { describe, expect, it } from "vitest";
import { ProtocolError } from "./errors.ts";
import { Reader } from "./reader.ts";
import { ZERO_UUID, uuidFromBytes, uuidToBytes } from "./uuid.ts";
import { Writer } from "./writer.ts";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");
const written = (f: (w: Writer) => void) => {
  const w = new Writer(1);
  f(w);
  return w.toBuffer().toString("hex");
};

describe("unsigned varint", () => {
  // Examples from the protobuf encoding guide and Kafka's ByteUtilsTest.
  const cases: [number, string][] = [
    [0, "00"],
    [1, "01"],
    [127, "7f"],
    [128, "8001"],
    [150, "9601"],
    [300, "ac02"],
    [16383, "ff7f"],
    [16384, "808001"],
    [2097151, "ffff7f"],
    [2097152, "80808001"],
    [2147483647, "ffffffff07"],
    [4294967295, "ffffffff0f"],
  ];
  for (const [value, bytes] of cases) {
    it(`${value} ⇄ ${bytes}`, () => {
      expect(written((w) => w.uvarint(value))).toBe(bytes);
      const r = new Reader(hex(bytes));
      expect(r.uvarint()).toBe(value);
      expect(r.remaining()).toBe(0);
    });
  }

  it("rejects a varint longer than 5 bytes and a truncated one", () => {
    expect(() => new Reader(hex("ffffffffff01")).uvarint()).toThrow(ProtocolError);
    expect(() => new Reader(hex("ff")).uvarint()).toThrow(ProtocolError);
    expect(() => new Reader(hex("")).uvarint()).toThrow(ProtocolError);
  });

  it("refuses to write values outside 0..2^32-1", () => {
    expect(() => new Writer().uvarint(-1)).toThrow(ProtocolError);
    expect(() => new Writer().uvarint(2 ** 32)).toThrow(ProtocolError);
  });
});

describe("zigzag varint and varlong", () => {
  // Zigzag table from the protobuf guide: 0→0, −1→1, 1→2, −2→3, 2^31−1→2^32−2, −2^31→2^32−1.
  const ints: [number, string][] = [
    [0, "00"],
    [-1, "01"],
    [1, "02"],
    [-2, "03"],
    [63, "7e"],
    [-64, "7f"],
    [64, "8001"],
    [2147483647, "feffffff0f"],
    [-2147483648, "ffffffff0f"],
  ];
  for (const [value, bytes] of ints) {
    it(`varint ${value} ⇄ ${bytes}`, () => {
      expect(written((w) => w.varint(value))).toBe(bytes);
      expect(new Reader(hex(bytes)).varint()).toBe(value);
      expect(written((w) => w.varlongNumber(value))).toBe(bytes);
      expect(new Reader(hex(bytes)).varlongNumber()).toBe(value);
    });
  }

  const longs: [bigint, string][] = [
    [0n, "00"],
    [-1n, "01"],
    [1n, "02"],
    [9223372036854775807n, "feffffffffffffffff01"],
    [-9223372036854775808n, "ffffffffffffffffff01"],
  ];
  for (const [value, bytes] of longs) {
    it(`varlong ${value} ⇄ ${bytes}`, () => {
      expect(written((w) => w.varlong(value))).toBe(bytes);
      expect(new Reader(hex(bytes)).varlong()).toBe(value);
    });
  }

  it("varlongNumber round-trips large safe integers and rejects unsafe ones", () => {
    for (const v of [1700000000000, -1700000000000, Number.MAX_SAFE_INTEGER >> 1]) {
      const w = new Writer();
      w.varlongNumber(v);
      expect(new Reader(w.toBuffer()).varlongNumber()).toBe(v);
    }
    expect(() => new Reader(hex("feffffffffffffffff01")).varlongNumber()).toThrow(ProtocolError);
  });
});

describe("strings", () => {
  it("classic string: int16 length + UTF-8; nullable −1", () => {
    expect(written((w) => w.string("abc"))).toBe("0003616263");
    expect(written((w) => w.nullableString(null))).toBe("ffff");
    expect(written((w) => w.string("é"))).toBe("0002c3a9");
    expect(new Reader(hex("0003616263")).string()).toBe("abc");
    expect(new Reader(hex("ffff")).nullableString()).toBeNull();
  });

  it("compact string: uvarint(len+1); empty = 01; null = 00", () => {
    expect(written((w) => w.compactString("abc"))).toBe("04616263");
    expect(written((w) => w.compactString(""))).toBe("01");
    expect(written((w) => w.compactNullableString(null))).toBe("00");
    expect(new Reader(hex("04616263")).compactString()).toBe("abc");
    expect(new Reader(hex("01")).compactString()).toBe("");
    expect(new Reader(hex("00")).compactNullableString()).toBeNull();
  });

  it("a null where the field is not nullable is a ProtocolError", () => {
    expect(() => new Reader(hex("ffff")).string()).toThrow(ProtocolError);
    expect(() => new Reader(hex("00")).compactString()).toThrow(ProtocolError);
    expect(() => new Reader(hex("ffffffff")).bytes()).toThrow(ProtocolError);
    expect(() => new Reader(hex("fffe")).nullableString()).toThrow(ProtocolError);
  });

  it("refuses to write a classic string longer than 32767 bytes", () => {
    expect(() => new Writer().string("x".repeat(40000))).toThrow(ProtocolError);
  });
});

describe("bytes", () => {
  it("classic bytes int32 length, compact uvarint(len+1), nulls", () => {
    expect(written((w) => w.bytes(hex("0102")))).toBe("000000020102");
    expect(written((w) => w.nullableBytes(null))).toBe("ffffffff");
    expect(written((w) => w.compactBytes(hex("0102")))).toBe("030102");
    expect(written((w) => w.compactNullableBytes(null))).toBe("00");
    expect(new Reader(hex("030102")).compactBytes().toString("hex")).toBe("0102");
    expect(new Reader(hex("ffffffff")).nullableBytes()).toBeNull();
  });

  it("returns views into the input instead of copies", () => {
    const frame = hex("00000003aabbcc");
    const b = new Reader(frame).bytes();
    expect(b.buffer).toBe(frame.buffer);
    frame[4] = 0x11;
    expect(b[0]).toBe(0x11);
  });
});

describe("fixed-width and other types", () => {
  it("integers are big-endian", () => {
    expect(
      written((w) => w.int8(-1).int16(0x0102).uint16(0xfffe).int32(-2).uint32(0xfffffffe).int64(-3n).bool(true)),
    ).toBe("ff" + "0102" + "fffe" + "fffffffe" + "fffffffe" + "fffffffffffffffd" + "01");
    const r = new Reader(hex("ff0102fffefffffffefffffffefffffffffffffffd01"));
    expect([r.int8(), r.int16(), r.uint16(), r.int32(), r.uint32(), r.int64(), r.bool()]).toEqual([
      -1, 0x0102, 0xfffe, -2, 0xfffffffe, -3n, true,
    ]);
  });

  it("float64 is an IEEE 754 double, big-endian", () => {
    expect(written((w) => w.float64(1.5))).toBe("3ff8000000000000");
    expect(new Reader(hex("3ff8000000000000")).float64()).toBe(1.5);
  });

  it("uuid: 16 bytes on the wire, Kafka's base64url text form in JS", () => {
    const bytes = hex("00112233445566778899aabbccddeeff");
    const s = uuidFromBytes(bytes);
    expect(s).toBe("ABEiM0RVZneImaq7zN3u_w");
    expect(written((w) => w.uuid(s))).toBe("00112233445566778899aabbccddeeff");
    expect(new Reader(bytes).uuid()).toBe(s);
    expect(uuidToBytes(ZERO_UUID).equals(Buffer.alloc(16))).toBe(true);
    expect(() => new Writer().uuid("not-a-uuid")).toThrow(ProtocolError);
  });

  it("arrays: classic int32 count (−1 null), compact uvarint(count+1) (0 null)", () => {
    expect(written((w) => w.arrayLength(2).int8(1).int8(2))).toBe("000000020102");
    expect(written((w) => w.arrayLength(-1))).toBe("ffffffff");
    expect(written((w) => w.compactArrayLength(2))).toBe("03");
    expect(written((w) => w.compactArrayLength(-1))).toBe("00");
    expect(new Reader(hex("000000020102")).array((r) => r.int8())).toEqual([1, 2]);
    expect(new Reader(hex("ffffffff")).nullableArray((r) => r.int8())).toBeNull();
    expect(new Reader(hex("030102")).compactArray((r) => r.int8())).toEqual([1, 2]);
    expect(new Reader(hex("00")).compactNullableArray((r) => r.int8())).toBeNull();
  });
});

describe("tagged fields", () => {
  it("empty section is a single 00", () => {
    expect(written((w) => w.emptyTaggedFields())).toBe("00");
  });

  it("writes count, then tag/size/bytes in ascending tag order", () => {
    const bytes = written((w) =>
      w.taggedFields([
        { tag: 5, data: hex("aabb") },
        { tag: 0, data: hex("01") },
      ]),
    );
    expect(bytes).toBe("02" + "00" + "01" + "01" + "05" + "02" + "aabb");
  });

  it("reads known tags and skips unknown ones", () => {
    const seen: [number, string][] = [];
    const r = new Reader(hex("02 00 01 01 05 02 aabb ff"));
    r.taggedFields((tag, field) => {
      if (tag !== 0) return false;
      seen.push([tag, field.raw(field.remaining()).toString("hex")]);
      return true;
    });
    expect(seen).toEqual([[0, "01"]]);
    expect(r.remaining()).toBe(1);
  });

  it("a tagged field whose size runs past the end is a ProtocolError", () => {
    expect(() => new Reader(hex("01 00 05 01")).taggedFields()).toThrow(ProtocolError);
  });
});

describe("malformed input", () => {
  it("every read past the end is a ProtocolError, not a RangeError", () => {
    const readers: ((r: Reader) => unknown)[] = [
      (r) => r.int8(),
      (r) => r.int16(),
      (r) => r.int32(),
      (r) => r.int64(),
      (r) => r.float64(),
      (r) => r.uuid(),
      (r) => r.string(),
      (r) => r.bytes(),
    ];
    for (const read of readers) expect(() => read(new Reader(Buffer.alloc(0)))).toThrow(ProtocolError);
    expect(() => new Reader(hex("0005616263")).string()).toThrow(ProtocolError);
  });

  it("absurd lengths are rejected before anything is allocated", () => {
    const before = process.memoryUsage().arrayBuffers;
    // int16 string length 32767, int32 bytes length 2^31−1, compact length 2^32−2, array count 2^31−1
    expect(() => new Reader(hex("7fff61")).string()).toThrow(ProtocolError);
    expect(() => new Reader(hex("7fffffff00")).bytes()).toThrow(ProtocolError);
    expect(() => new Reader(hex("ffffffff0f00")).compactBytes()).toThrow(ProtocolError);
    expect(() => new Reader(hex("7fffffff00")).array((r) => r.int8())).toThrow(ProtocolError);
    expect(() => new Reader(hex("ffffffff0f00")).compactArray((r) => r.int8())).toThrow(ProtocolError);
    expect(() => new Reader(hex("80000000")).arrayLength()).toThrow(ProtocolError);
    // compact string whose length is 2^31−1 (uvarint 2^31 = 80 80 80 80 08)
    expect(() => new Reader(hex("8080808008 61")).compactString()).toThrow(ProtocolError);
    expect(() => new Reader(hex("8080808008 61")).compactNullableString()).toThrow(ProtocolError);
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
  });

  it("a reader window cannot extend past its buffer", () => {
    expect(() => new Reader(Buffer.alloc(4), 2, 8)).toThrow(ProtocolError);
  });
});

describe("Writer growth", () => {
  it("grows past its initial size without losing bytes", () => {
    const w = new Writer(16);
    for (let i = 0; i < 10000; i++) w.int32(i);
    const r = new Reader(w.toBuffer());
    for (let i = 0; i < 10000; i++) expect(r.int32()).toBe(i);
  });
});
