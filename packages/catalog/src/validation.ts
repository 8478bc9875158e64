import { z } from "zod";
import { CLASSIFICATIONS, CLEANUP_POLICIES, PRODUCT_STATUSES, SCHEMA_FORMATS, SEARCH_SORTS } from "./enums.ts";
import { ACCOUNT_NAME_MAX_LENGTH, SLUG_PATTERN, slugify } from "./naming.ts";
import { COMPATIBILITY_MODES } from "./schema/modes.ts";
import { MAX_SCHEMA_LENGTH, schemaDefinitionProblem } from "./schema-definition.ts";

// These schemas also run in the portal's browser bundle, under a CSP without
// 'unsafe-eval': zod's JIT (and its `new Function` probe, which Chromium
// reports as a CSP violation even when caught) stays off. Must run before any
// object schema below is built.
z.config({ jitless: true });
export { COMPATIBILITY_MODES };

/*
 * Input schemas shared by the portal's forms (client-side messages) and the
 * server (the check that counts). Numbers arrive as numbers: forms convert
 * their strings before validating, so the API and the UI see one contract.
 */

export { CLASSIFICATIONS, CLEANUP_POLICIES, PRODUCT_STATUSES, SCHEMA_FORMATS, SEARCH_SORTS } from "./enums.ts";

const HOUR_MS = 3_600_000;

/**
 * PostgreSQL text cannot hold NUL, and no legitimate value contains one: it is
 * refused on every string with a message naming the field, instead of a 500
 * from the database.
 */
const NUL_MESSAGE = "must not contain NUL (\\u0000) characters.";

/*
 * Text is well-formed Unicode without control characters (issue 30, finding
 * 19): a lone UTF-16 surrogate (`\ud800`, which JSON can spell) cannot be
 * stored as UTF-8 — PostgreSQL refused it with a 500 — and control
 * characters in a name (`\u0006`) make it unreadable and spoof other names.
 * Tabs and line breaks are allowed only in texts that may span lines
 * (descriptions, reasons, purposes, schema and contract files); names and
 * other one-line texts refuse them too.
 */
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL_IN_ANY_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex -- control characters are what this finds
const CONTROL_IN_ONE_LINE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Why a text is not acceptable (`label` starts the message), or null. */
export function textProblem(label: string, value: string, multiline: boolean): string | null {
  if (LONE_SURROGATE.test(value)) return `${label} contains an invalid character (a lone UTF-16 surrogate); send well-formed Unicode text.`;
  if (value.includes("\u0000")) return `${label} ${NUL_MESSAGE}`;
  if ((multiline ? CONTROL_IN_ANY_TEXT : CONTROL_IN_ONE_LINE).test(value)) {
    return multiline
      ? `${label} must not contain control characters (only tabs and line breaks).`
      : `${label} must be one line without control characters (no tabs or line breaks).`;
  }
  return null;
}

/** A zod check refusing what `textProblem` names. */
export function textCheck(label: string, multiline: boolean) {
  return (ctx: z.core.ParsePayload<string>) => {
    const problem = textProblem(label, ctx.value, multiline);
    if (problem) ctx.issues.push({ code: "custom", message: problem, input: ctx.value });
  };
}

/*
 * The same rules as JSON Schema patterns (ECMA-262), for the API document
 * (issue 30, finding 18: the document states what the handler refuses).
 * Lone surrogates are not in them: a pattern cannot name one (regex engines
 * over Unicode scalar values, such as the Rust one schemathesis validates
 * with, refuse `\ud800` as not a regex); the document says in its
 * description that texts are well-formed Unicode (I-JSON, RFC 7493).
 */
const ANY_TEXT_REFUSED = "\\u0000-\\u0008\\u000b\\u000c\\u000e-\\u001f\\u007f-\\u009f";
const ONE_LINE_REFUSED = "\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029";
/** What String.prototype.trim removes (ECMA-262 WhiteSpace and LineTerminator) and a text may hold, spelled out: generators' `\\s` differs. */
const BLANK_IN_ANY_TEXT = "\\t\\n\\r \\u00a0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff";
const BLANK_IN_ONE_LINE = " \\u00a0\\u1680\\u2000-\\u200a\\u202f\\u205f\\u3000\\ufeff";
/** The end of the text: `$` also matches before a final line break in some regex engines. */
const END = "(?![\\s\\S])";

/**
 * The JSON Schema pattern of the texts textProblem accepts (one-line unless
 * `multiline`) that are at least `min` characters long once trimmed: blanks
 * (what trim removes), then `min` or more characters from the first to the
 * last one that is not blank, then blanks.
 */
export function textPattern(multiline: boolean, min = 0): string {
  const refused = multiline ? ANY_TEXT_REFUSED : ONE_LINE_REFUSED;
  const blanks = multiline ? BLANK_IN_ANY_TEXT : BLANK_IN_ONE_LINE;
  const any = `[^${refused}]`;
  const solid = `[^${refused}${blanks}]`;
  if (min <= 0) return `^${any}*${END}`;
  if (min === 1) return `^${any}*${solid}${any}*${END}`;
  return `^[${blanks}]*${solid}${any}{${min - 2},}${solid}[${blanks}]*${END}`;
}

/** A zod string that refuses what `textProblem` names; one-line unless `multiline`. */
export function cleanString(label: string, options: { multiline?: boolean; message?: string } = {}) {
  return z
    .string({ message: options.message ?? `${label} must be text.` })
    .check(textCheck(label, options.multiline ?? false))
    .meta({ pattern: textPattern(options.multiline ?? false) });
}

/**
 * A string field: well-formed, no control characters (tabs and line breaks
 * only with `multiline`), at most `max` characters (before trimming, so
 * nothing huge is ever processed).
 */
export function text(label: string, max: number, options: { multiline?: boolean; min?: number; minMessage?: string } = {}) {
  const trimmed = z
    .string({ message: `${label} must be text.` })
    .max(max, `${label} must be at most ${max} characters.`)
    .check(textCheck(label, options.multiline ?? false))
    .trim();
  // At least `min` characters once trimmed; the document's pattern says so (minLength alone would let white space through).
  const bounded = options.min ? trimmed.min(options.min, options.minMessage ?? `${label} must be at least ${options.min} characters.`) : trimmed;
  return bounded.meta({ pattern: textPattern(options.multiline ?? false, options.min ?? 0) });
}

/** A text that may span lines (descriptions, reasons, purposes), at least `min` characters once trimmed. */
export function longText(label: string, max: number, min?: { min: number; message: string }) {
  return text(label, max, { multiline: true, ...(min ? { min: min.min, minMessage: min.message } : {}) });
}

/**
 * A date as the API document states it: an ISO 8601 date (`2030-01-31`) or
 * date-time with an offset (`2030-01-31T12:00:00Z`), nothing else (what
 * `Date` would also have parsed, "Jan 31 2030" or 1e12, is refused: issue 30,
 * finding 18); parsed to a Date.
 */
export function isoDate(message: string) {
  // A Date passes as it is (callers in the process: tests, the MCP tools); JSON carries the strings.
  return z.union([z.date({ message }), z.iso.date({ message }), z.iso.datetime({ offset: true, message })], { message }).transform((v) => (v instanceof Date ? v : new Date(v)));
}

/** An isoDate that must lie in the future. */
export function futureDate(message: string, futureMessage: string) {
  return isoDate(message).refine((d) => d.getTime() > Date.now(), futureMessage);
}

/**
 * An e-mail address as sent: zod's e-mail pattern (spaces around it allowed,
 * then trimmed), at most LIMITS.emailMax characters. A pattern rather than a
 * pipe into z.email(), so that the API document states the rule the handler
 * applies (issue 30, finding 18).
 */
export function emailText(label: string, message: string) {
  return z
    .string({ message: `${label} must be text.` })
    .max(LIMITS.emailMax, `${label} must be at most ${LIMITS.emailMax} characters.`)
    .regex(new RegExp(`^ *${z.regexes.email.source.slice(1, -1)} *$`), message)
    .trim();
}

/** Ids of catalog rows (cuid today); bounded and NUL-free like every other string. */
export function idField(label: string, requiredMessage: string) {
  return text(label, ID_MAX_LENGTH, { min: 1, minMessage: requiredMessage });
}
export const ID_MAX_LENGTH = 64;
/** Platform bounds (policy): enough for real products, small enough to catch typos. */
export const LIMITS = {
  nameMin: 3,
  nameMax: 80,
  descriptionMin: 10,
  descriptionMax: 4000,
  tagsMax: 10,
  partitionsMax: 256,
  retentionMinMs: HOUR_MS,
  localRetentionMinMs: 60_000,
  freshnessMaxSeconds: 30 * 24 * 3600,
  availabilityMin: 90,
  reasonMin: 5,
  reasonMax: 2000,
  purposeMin: 10,
  purposeMax: 2000,
  /** RFC 5321: a forward path is at most 256 octets including the angle brackets. */
  emailMax: 254,
  /**
   * A schema definition; Avro and JSON schemas of real products are far
   * smaller. The one bound schemaDefinitionProblem enforces too, so the API
   * document's maxLength is what the handlers accept (issue 30, finding 18).
   */
  schemaDefinitionMax: MAX_SCHEMA_LENGTH,
  accountDescriptionMax: 500,
  searchMax: 200,
  pageMax: 10_000,
} as const;

// Checked as sent (the document's pattern is the handler's: spaces around it are allowed and trimmed), then lower-cased.
const tag = z
  .string({ message: "A tag must be text." })
  .max(64, "A tag must be at most 64 characters.")
  .regex(/^ *[A-Za-z0-9][A-Za-z0-9-]{0,31} *$/, "Tags are lower-case letters, digits and dashes, at most 32 characters.")
  .trim()
  .toLowerCase();

export const schemaInput = z
  .object({
    format: z.enum(SCHEMA_FORMATS, { message: "Choose Avro or JSON Schema." }),
    definition: z
      .string({ message: "The schema definition must be text." })
      .max(LIMITS.schemaDefinitionMax, `The schema definition must be at most ${LIMITS.schemaDefinitionMax} characters.`)
      .check(textCheck("The schema definition", true)),
  })
  .superRefine((value, ctx) => {
    const problem = schemaDefinitionProblem(value.format, value.definition);
    if (problem) ctx.addIssue({ code: "custom", path: ["definition"], message: problem });
  });

const productFields = {
  // The bound applies to the text as sent (before trimming), so the API document's maxLength is the handler's (issue 30, finding 18).
  name: text("Name", LIMITS.nameMax)
    .min(LIMITS.nameMin, `Name must be at least ${LIMITS.nameMin} characters.`)
    .refine((name) => SLUG_PATTERN.test(slugify(name)), "Name must contain letters or digits."),
  description: longText("Description", LIMITS.descriptionMax, { min: LIMITS.descriptionMin, message: `Describe the product in at least ${LIMITS.descriptionMin} characters.` }),
  classification: z.enum(CLASSIFICATIONS, { message: "Choose a classification." }),
  tags: z
    .array(tag)
    .max(LIMITS.tagsMax, `At most ${LIMITS.tagsMax} tags.`)
    .refine((tags) => new Set(tags).size === tags.length, "Tags must be unique."),
  freshnessSeconds: z
    .number({ message: "Freshness must be a number of seconds." })
    .int("Freshness must be a whole number of seconds.")
    .min(1, "Freshness must be at least 1 second.")
    .max(LIMITS.freshnessMaxSeconds, "Freshness can be at most 30 days."),
  availabilityPct: z
    .number({ message: "Availability must be a percentage." })
    .min(LIMITS.availabilityMin, `Availability must be at least ${LIMITS.availabilityMin} %.`)
    .max(100, "Availability cannot exceed 100 %.")
    .refine((v) => Math.round(v * 1000) === v * 1000, "Use at most three decimals."),
  partitions: z
    .number({ message: "Partitions must be a number." })
    .int("Partitions must be a whole number.")
    .min(1, "At least 1 partition.")
    .max(LIMITS.partitionsMax, `At most ${LIMITS.partitionsMax} partitions.`),
  retentionMs: z
    .number({ message: "Retention must be a number of milliseconds." })
    .int("Retention must be whole milliseconds.")
    .refine((v) => v === -1 || v >= LIMITS.retentionMinMs, "Retention is -1 (forever) or at least one hour (3600000 ms).")
    // The document states the rule (issue 30, finding 18).
    .meta({ anyOf: [{ const: -1 }, { minimum: LIMITS.retentionMinMs }] }),
  cleanupPolicy: z.enum(CLEANUP_POLICIES, { message: "Cleanup policy is delete or compact." }),
  tieredStorage: z.boolean(),
  localRetentionMs: z
    .number({ message: "Local hot window must be a number of milliseconds." })
    .int("Local hot window must be whole milliseconds.")
    .refine((v) => v === -2 || v >= LIMITS.localRetentionMinMs, "Local hot window is -2 (same as retention) or at least 60000 ms.")
    .meta({ anyOf: [{ const: -2 }, { minimum: LIMITS.localRetentionMinMs }] }),
  contactEmail: emailText("The contact e-mail", "Enter a contact e-mail address."),
  compatibilityMode: z.enum(COMPATIBILITY_MODES, { message: "Choose a compatibility mode." }),
  /** Top-level schema fields that form the record key, in order (compacted products need one). */
  keyFields: z
    .array(z.string().trim().regex(/^[A-Za-z_$][A-Za-z0-9_$-]{0,127}$/, "Key fields are top-level field names of the schema."))
    .max(8, "At most 8 key fields.")
    .refine((keys) => new Set(keys).size === keys.length, "Key fields must be unique."),
};

/** Rules that span fields; Kafka itself refuses these combinations. */
function refineProduct(value: Partial<ProductFieldsShape>, ctx: z.RefinementCtx) {
  if (value.tieredStorage && value.cleanupPolicy === "compact") {
    ctx.addIssue({ code: "custom", path: ["tieredStorage"], message: "Tiered storage is not available for compacted topics." });
  }
  if (
    value.tieredStorage &&
    value.localRetentionMs !== undefined &&
    value.localRetentionMs !== -2 &&
    value.retentionMs !== undefined &&
    value.retentionMs !== -1 &&
    value.localRetentionMs > value.retentionMs
  ) {
    ctx.addIssue({ code: "custom", path: ["localRetentionMs"], message: "The local hot window cannot be longer than the retention." });
  }
}
type ProductFieldsShape = { [K in keyof typeof productFields]: z.infer<(typeof productFields)[K]> };

export const registerProductInput = z
  .object({
    domainId: idField("The domain id", "Choose a domain."),
    ...productFields,
    tags: productFields.tags.default([]),
    retentionMs: productFields.retentionMs.default(-1),
    cleanupPolicy: productFields.cleanupPolicy.default("delete"),
    tieredStorage: productFields.tieredStorage.default(false),
    localRetentionMs: productFields.localRetentionMs.default(-2),
    compatibilityMode: productFields.compatibilityMode.default("BACKWARD"),
    keyFields: productFields.keyFields.default([]),
    schema: schemaInput,
  })
  .superRefine(refineProduct);
export type RegisterProductInput = z.input<typeof registerProductInput>;

export const updateProductInput = z
  .object({
    ...productFields,
    schema: schemaInput,
  })
  .partial()
  .superRefine(refineProduct);
export type UpdateProductInput = z.input<typeof updateProductInput>;

export const reasonInput = z.object({
  reason: longText("The reason", LIMITS.reasonMax, { min: LIMITS.reasonMin, message: `Give a reason of at least ${LIMITS.reasonMin} characters.` }),
});

export const deprecateProductInput = z.object({
  reason: reasonInput.shape.reason,
  sunsetAt: futureDate("Enter a sunset date (YYYY-MM-DD or an ISO date-time).", "The sunset date must be in the future."),
});

export const retireProductInput = z.object({
  reason: reasonInput.shape.reason,
});

/** A schema text: bounded and NUL-free like every other string (the format is the product's). */
const schemaText = (message: string) =>
  z
    .string({ message })
    .max(LIMITS.schemaDefinitionMax, `The schema definition must be at most ${LIMITS.schemaDefinitionMax} characters.`)
    .check(textCheck("The schema definition", true));

/** A new schema version's text; the format is the product's. */
export const proposeSchemaVersionInput = z.object({
  definition: schemaText("Paste or upload a schema."),
});

/** An approval's optional comment (rejections need a reason: `reasonInput`). */
export const approvalCommentInput = z.object({
  comment: longText("The comment", 2000).optional(),
});

/** Approving takes an optional comment and the fingerprint of the version the reviewer looked at. */
export const approveSchemaVersionInput = z.object({
  comment: longText("The comment", 2000).optional(),
  fingerprint: z.string({ message: "Open the change before approving it." }).regex(/^[0-9a-f]{64}$/, "Open the change before approving it."),
});

/** Migration rules (issue 29): one JSONata expression's size limit — a mapping of fields, not a program. */
export const MIGRATION_EXPRESSION_MAX = 4000;

const migrationExpression = (what: string) =>
  z
    .string({ message: `The ${what} expression is JSONata text.` })
    .trim()
    .min(1, `The ${what} expression is empty.`)
    .max(MIGRATION_EXPRESSION_MAX, `The ${what} expression is at most ${MIGRATION_EXPRESSION_MAX} characters.`)
    .refine((text) => ![...text].some((c) => { const n = c.charCodeAt(0); return (n < 32 && n !== 9 && n !== 10 && n !== 13) || n === 127; }), `The ${what} expression contains a control character.`);

/** A new major version's migration rules: DOWNGRADE (new shape → the predecessor's), optionally UPGRADE (the reverse); checked further in quality/migration-rules.ts. */
export const migrationRulesInput = z
  .object({
    downgrade: migrationExpression("DOWNGRADE"),
    upgrade: z.union([z.literal("").transform(() => undefined), z.null().transform(() => undefined), migrationExpression("UPGRADE")]).optional(),
  })
  .strict();

export const publishMajorVersionInput = z.object({
  definition: schemaText("Paste or upload a schema."),
  /** Applied to the current version when the new one is approved; without it, the policy's deprecation notice from that day. */
  sunsetAt: z
    .union([z.literal("").transform(() => undefined), z.null().transform(() => undefined), futureDate("The sunset date is a date (YYYY-MM-DD or an ISO date-time).", "The sunset date must be in the future.")])
    .optional(),
  reason: longText("The reason", 2000).optional(),
  /** JSONata migration rules so that consumers of the current version can read the new topic's records in its shape. */
  migrationRules: migrationRulesInput.optional(),
});

/** The full name `<domain-slug>-<name>`; the namespace and reserved names are checked against the database (principals.ts). */
export const createServiceAccountInput = z.object({
  domainId: idField("The domain id", "Choose a domain."),
  name: text("The account name", ACCOUNT_NAME_MAX_LENGTH, { min: 1, minMessage: "Enter an account name." }),
  description: longText("Description", LIMITS.accountDescriptionMax).default(""),
});
export type CreateServiceAccountInput = z.input<typeof createServiceAccountInput>;

/** A quota class name as the policy writes them; whether it exists is checked against the policy in force. */
export const quotaClassField = z.string().trim().regex(/^[a-z][a-z0-9-]{0,39}$/, "Choose one of the policy's quota classes, e.g. standard.");
export const quotaClassReasonField = longText("The reason", LIMITS.reasonMax);

/** An owner chooses the quota class of a product's producer account (PUT /api/v1/products/{id}/quota-class). */
export const setProductQuotaClassInput = z.object({ quotaClass: quotaClassField, reason: quotaClassReasonField.optional() });
export type SetProductQuotaClassInput = z.input<typeof setProductQuotaClassInput>;
/** Governance refuses a waiting quota class with a reason. */
export const rejectQuotaClassInput = z.object({ reason: longText("The reason", LIMITS.reasonMax, { min: LIMITS.reasonMin, message: `Give a reason of at least ${LIMITS.reasonMin} characters.` }) });

export const requestSubscriptionInput = z.object({
  productId: idField("The product id", "Choose a product."),
  serviceAccountId: idField("The service account id", "Choose a service account."),
  purpose: longText("The purpose", LIMITS.purposeMax, { min: LIMITS.purposeMin, message: `State the purpose in at least ${LIMITS.purposeMin} characters.` }),
  /** The subscriber needs PII fields unmasked (message browser, state view); governance must approve that separately. */
  piiNeeded: z.boolean().default(false),
  piiJustification: longText("The justification", LIMITS.purposeMax).optional(),
  /** Optional end of access (ISO date or date-time, in the future); the recertification sweep revokes it then. */
  expiresAt: z
    .union([z.literal("").transform(() => null), z.null(), futureDate("Enter a date (YYYY-MM-DD or an ISO date-time).", "The expiry must be in the future.")])
    .optional(),
  /** The environment to read in (a registered cluster's name); absent: the primary environment. */
  environment: z
    .string()
    .trim()
    .regex(/^[a-z][a-z0-9-]{0,29}$/, "Choose one of the environments where the product is live.")
    .optional(),
  /** The client quota class (policy `quota-classes`) the account needs for this subscription; absent: the default. */
  quotaClass: quotaClassField.optional(),
  /** Why a class larger than the default is needed (governance reads it). */
  quotaClassReason: quotaClassReasonField.optional(),
}).superRefine((v, ctx) => {
  if (v.piiNeeded && (v.piiJustification ?? "").length < LIMITS.purposeMin) {
    ctx.addIssue({ code: "custom", path: ["piiJustification"], message: `Say why you need the personal data unmasked (at least ${LIMITS.purposeMin} characters).` });
  }
});
export type RequestSubscriptionInput = z.input<typeof requestSubscriptionInput>;

export const searchProductsInput = z.object({
  q: text("The search text", LIMITS.searchMax).optional(),
  domain: text("The domain", 100).optional(),
  classification: z.enum(CLASSIFICATIONS).optional(),
  tag: text("The tag", 64).toLowerCase().optional(),
  status: z.enum(PRODUCT_STATUSES).optional(),
  /** relevance (the default with `q`), updated (the default without), created, name. */
  sort: z.enum(SEARCH_SORTS).optional(),
  page: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type SearchProductsInput = z.input<typeof searchProductsInput>;

/** A date (`2026-12-01`, the whole day) or an ISO date-time. */
const auditDate = (end: boolean) =>
  z
    .string()
    .trim()
    // Months, days, hours, minutes and offsets in range: the document's pattern then says which dates are real (issue 30, finding 18).
    .regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])([T ]([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,3})?)?(Z|[+-]([01]\d|2[0-3]):?[0-5]\d)?)?$/, "Use a date like 2026-12-01 or an ISO date-time.")
    .transform((v, ctx) => {
      const dayOnly = /^\d{4}-\d{2}-\d{2}$/.test(v);
      // A bare day means that whole day (UTC): `to` includes it up to its end.
      const d = new Date(dayOnly ? `${v}T00:00:00.000Z` : v);
      if (Number.isNaN(d.getTime())) {
        ctx.addIssue({ code: "custom", message: "Not a real date." });
        return z.NEVER;
      }
      return dayOnly && end ? new Date(d.getTime() + 24 * 3600_000 - 1) : d;
    });

export const auditQueryInput = z
  .object({
    entityType: text("The entity type", 100).optional(),
    entityId: text("The entity id", 200).optional(),
    actor: text("The actor", LIMITS.emailMax).optional(),
    /** Matches any action containing this text, e.g. `subscription.` or `revoked`. */
    action: text("The action", 100).optional(),
    /** `mcp`: only what agents did through the MCP server (events carrying `via: "mcp"`). */
    via: z.enum(["mcp"], { message: "via is mcp or absent." }).optional(),
    from: auditDate(false).optional(),
    to: auditDate(true).optional(),
    page: z.coerce.number().int().min(1).max(LIMITS.pageMax).default(1),
    pageSize: z.coerce.number().int().min(1).max(200).default(50),
  })
  .refine((v) => !v.from || !v.to || v.from.getTime() <= v.to.getTime(), { path: ["to"], message: "The end of the range is before its start." });

/** zod issues → `{ field: [messages] }`, the shape forms and the API share. */
export function fieldErrors(error: z.ZodError): Record<string, string[]> {
  const fields: Record<string, string[]> = {};
  for (const issue of error.issues) {
    const key = issue.path.length > 0 ? issue.path.join(".") : "_";
    (fields[key] ??= []).push(issue.message);
  }
  return fields;
}
