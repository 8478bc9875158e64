// The iteration order of a java.util.HashMap<String, …> filled with `keys` in
// the given order. Kafka answers some lists in that order because it collects
// them in a HashMap: the SASL mechanisms of an UNSUPPORTED_SASL_MECHANISM
// answer, the users of DescribeUserScramCredentials (ScramImage.describe).
// Answering in the same order keeps this broker's answers equal to Kafka's.
//
// HashMap: capacity 16, doubled whenever the size exceeds 0.75 × capacity; a
// key's bucket is (h ^ (h >>> 16)) & (capacity − 1) with h = String.hashCode();
// iteration walks the buckets in index order, each bucket in insertion order
// (a resize splits buckets without reordering them). A bucket of 8 or more
// keys (tree bins) is not modelled: it needs dozens of colliding keys.

/** Java's String.hashCode(): s[0]·31^(n−1) + … + s[n−1] over UTF-16 code units, in 32-bit arithmetic. */
export function javaStringHash(s: string): number {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
}

/** The distinct `keys` in the order a java.util.HashMap filled with them in this order iterates. */
export function javaHashMapOrder(keys: Iterable<string>): string[] {
  return javaHashMapOrderBy(keys, javaStringHash);
}

/**
 * The same for keys of another Java class, given its hashCode(): `keys` are
 * the keys' identities (equal keys, equal strings) and `hash` their hashCode.
 */
export function javaHashMapOrderBy(keys: Iterable<string>, hash: (key: string) => number): string[] {
  const distinct = [...new Set(keys)];
  let capacity = 16;
  while (distinct.length > capacity * 0.75) capacity *= 2;
  const bucketOf = (k: string): number => {
    const h = hash(k);
    return (h ^ (h >>> 16)) & (capacity - 1);
  };
  // A stable sort by bucket keeps insertion order within a bucket.
  return distinct.map((k, i) => ({ k, i, b: bucketOf(k) })).sort((x, y) => x.b - y.b || x.i - y.i).map((e) => e.k);
}
