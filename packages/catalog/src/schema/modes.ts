/**
 * Compatibility modes with Confluent Schema Registry's names and meanings:
 * BACKWARD — consumers on the new schema can read data written with the
 * previous one; FORWARD — consumers on the previous schema can read data
 * written with the new one; FULL — both. `_TRANSITIVE` checks against every
 * earlier version instead of the latest only. NONE checks nothing.
 */
export const COMPATIBILITY_MODES = [
  "BACKWARD",
  "BACKWARD_TRANSITIVE",
  "FORWARD",
  "FORWARD_TRANSITIVE",
  "FULL",
  "FULL_TRANSITIVE",
  "NONE",
] as const;
export type CompatibilityMode = (typeof COMPATIBILITY_MODES)[number];

/** Confluent's default, and ours. */
export const DEFAULT_COMPATIBILITY_MODE: CompatibilityMode = "BACKWARD";

/** Which reader reads which writer: BACKWARD = the new version reads older data; FORWARD = older versions read new data. */
export type Direction = "BACKWARD" | "FORWARD";

export interface ModeRequirements {
  /** Directions the mode checks. */
  directions: Direction[];
  /** Against every earlier version (true) or the latest one only. */
  transitive: boolean;
}

export function modeRequirements(mode: CompatibilityMode): ModeRequirements {
  switch (mode) {
    case "BACKWARD":
      return { directions: ["BACKWARD"], transitive: false };
    case "BACKWARD_TRANSITIVE":
      return { directions: ["BACKWARD"], transitive: true };
    case "FORWARD":
      return { directions: ["FORWARD"], transitive: false };
    case "FORWARD_TRANSITIVE":
      return { directions: ["FORWARD"], transitive: true };
    case "FULL":
      return { directions: ["BACKWARD", "FORWARD"], transitive: false };
    case "FULL_TRANSITIVE":
      return { directions: ["BACKWARD", "FORWARD"], transitive: true };
    case "NONE":
      return { directions: [], transitive: false };
  }
}

/**
 * The (direction, scope) pairs a mode demands. A transitive mode demands the
 * latest version too, so one mode is at least as strict as another exactly
 * when its set contains the other's.
 */
function demands(mode: CompatibilityMode): Set<string> {
  const { directions, transitive } = modeRequirements(mode);
  const set = new Set<string>();
  for (const d of directions) {
    set.add(`${d}:latest`);
    if (transitive) set.add(`${d}:all`);
  }
  return set;
}

/** Modes that demand everything `mode` does and more, weakest first (FULL_TRANSITIVE last). */
export function stricterModes(mode: CompatibilityMode): CompatibilityMode[] {
  const mine = demands(mode);
  return COMPATIBILITY_MODES.filter((other) => {
    const theirs = demands(other);
    return theirs.size > mine.size && [...mine].every((d) => theirs.has(d));
  }).sort((a, b) => demands(a).size - demands(b).size);
}

export function isCompatibilityMode(value: unknown): value is CompatibilityMode {
  return typeof value === "string" && (COMPATIBILITY_MODES as readonly string[]).includes(value);
}
