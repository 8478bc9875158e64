/*
 * Masking rules shared by the Avro and JSON walkers: a value is replaced when
 * the schema tags its field as PII, or when its path is on the product's
 * masking list. Paths use piiFieldPaths' syntax (`customer.email`,
 * `lines[].buyerEmail`, `attributes{}.phone`). The walkers follow the schema
 * along the data, so recursive types are masked at every depth.
 */

export const MASKED = "[masked]";

/** Deeper than this, a value is not walked but masked whole: nothing leaks through nesting. */
export const MAX_DEPTH = 64;

export interface MaskContext {
  /** True when the viewer may see PII: nothing is masked. */
  piiVisible: boolean;
  /** The product's masking list (paths). */
  maskedPaths: ReadonlySet<string>;
  /** Paths that were masked in this value (for the UI). */
  applied: Set<string>;
}

export function childPath(prefix: string, name: string): string {
  return prefix === "" ? name : `${prefix}.${name}`;
}

/** Whether the field at `path` (tagged `pii` in the schema or not) is masked for this viewer. */
export function shouldMask(ctx: MaskContext, path: string, taggedPii: boolean): boolean {
  if (ctx.piiVisible) return false;
  return taggedPii || ctx.maskedPaths.has(path);
}

export function mask(ctx: MaskContext, path: string): string {
  ctx.applied.add(path);
  return MASKED;
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
