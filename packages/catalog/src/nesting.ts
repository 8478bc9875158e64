/*
 * A bound on nesting, checked before anything recursive looks at an input
 * (issue 30, finding 10): Ajv compiling a JSON Schema nested 1,000 levels ran
 * out of stack (a 500), and schemas nested 600 (JSON) or 1,000 (Avro) levels
 * deep were stored and then broke the YAML export. No real schema, contract or
 * request body comes near 64 levels; every check here is iterative, so the
 * check itself cannot overflow.
 */

export const MAX_NESTING_DEPTH = 64;

/**
 * The deepest `{`/`[` nesting in a JSON text, found by scanning (strings
 * skipped), without parsing: cheap, and safe for any input.
 */
export function jsonTextDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth > max) max = depth;
    } else if ((c === 0x7d || c === 0x5d) && depth > 0) depth--;
  }
  return max;
}

/** The nesting depth of a parsed value (objects and arrays), counted up to `limit + 1` at most. */
export function valueDepth(value: unknown, limit = MAX_NESTING_DEPTH): number {
  let max = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    const here = depth + 1;
    if (here > max) max = here;
    if (max > limit) return max;
    for (const child of Array.isArray(current) ? current : Object.values(current)) stack.push([child, here]);
  }
  return max;
}

/** The refusal's words, naming what was too deep. */
export function nestingMessage(what: string): string {
  return `${what} is nested more than ${MAX_NESTING_DEPTH} levels deep; flatten it.`;
}
