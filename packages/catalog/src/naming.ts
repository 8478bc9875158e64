/** Kafka's topic-name rules: legal characters and at most 249 of them. */
export const TOPIC_NAME_PATTERN = /^[a-zA-Z0-9._-]+$/;
export const TOPIC_NAME_MAX_LENGTH = 249;

/** Lower-case slug used for domains and products: letters, digits, inner dashes. */
export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}

/** `<domain>.<product>.v<major>`, the topic a data product lives in. */
export function topicNameFor(domainSlug: string, productSlug: string, majorVersion: number): string {
  const name = `${domainSlug}.${productSlug}.v${majorVersion}`;
  const problem = topicNameProblem(name);
  if (problem) throw new Error(problem);
  return name;
}

export function topicNameProblem(name: string): string | null {
  if (name.length === 0) return "Topic name is empty.";
  if (name.length > TOPIC_NAME_MAX_LENGTH) return `Topic name is ${name.length} characters; Kafka allows at most ${TOPIC_NAME_MAX_LENGTH}.`;
  if (name === "." || name === "..") return `"${name}" is not a legal topic name.`;
  if (!TOPIC_NAME_PATTERN.test(name)) return `Topic name "${name}" may only contain letters, digits, ".", "_" and "-".`;
  return null;
}

/** Kafka user name of a domain's producer account (created by the platform only). */
export const PRODUCER_SUFFIX = "-producer";

export function producerAccountName(domainSlug: string): string {
  return `${domainSlug}${PRODUCER_SUFFIX}`;
}

/** Consumer groups a subscriber may use: everything under its account name. */
export function consumerGroupPrefix(accountName: string): string {
  return `${accountName}.`;
}

/**
 * Service account names: `<domain-slug>-<name>`, lower-case letters, digits,
 * "-" and "_", 3–64 characters. No ".": consumer-group prefixes are
 * `<account>.`, so without dots in names no account's prefix can cover the
 * groups of another (account `x` would otherwise read groups `x.y.*` of an
 * account `x.y`).
 */
export const ACCOUNT_NAME_PATTERN = /^[a-z0-9][a-z0-9_-]{1,62}[a-z0-9]$/;
export const ACCOUNT_NAME_MAX_LENGTH = 64;

/** The prefix every account name of a domain starts with. */
export function accountNamePrefix(domainSlug: string): string {
  return `${domainSlug}-`;
}

export interface ReservedName {
  name: string;
  match: "EXACT" | "PREFIX";
  reason: string;
}

/** The reserved entry a principal name falls under (case-insensitive: Kafka compares exactly, people do not). */
export function reservedMatch(name: string, reserved: readonly ReservedName[]): ReservedName | null {
  const lower = name.toLowerCase();
  return reserved.find((r) => (r.match === "EXACT" ? lower === r.name.toLowerCase() : lower.startsWith(r.name.toLowerCase()))) ?? null;
}

export interface AccountNameContext {
  /** Slug of the domain the account belongs to. */
  domainSlug: string;
  /** Slugs of every other domain (a longer slug owns its own namespace inside a shorter one's). */
  otherDomainSlugs: readonly string[];
  reserved: readonly ReservedName[];
  /** True only for the platform's own producer account. */
  isProducer?: boolean;
  /** A name being chosen now (not an existing account's): the platform's `-producer` names are refused. */
  newName?: boolean;
}

/**
 * Why `name` may not be an account of the domain, or null. The one rule set
 * for the catalog (creation) and the worker (before it alters a principal).
 */
export function accountNameProblem(name: string, ctx: AccountNameContext): string | null {
  const prefix = accountNamePrefix(ctx.domainSlug);
  if (name.includes(".")) return `Account names cannot contain "."; consumer-group prefixes are "<account>." and must not nest.`;
  if (!name.startsWith(prefix) || name.length <= prefix.length) {
    return `Account names of the ${ctx.domainSlug} domain start with "${prefix}", e.g. "${prefix}analytics".`;
  }
  if (!ACCOUNT_NAME_PATTERN.test(name)) {
    return `Account names are 3–${ACCOUNT_NAME_MAX_LENGTH} lower-case letters, digits, "-" or "_", starting and ending with a letter or digit.`;
  }
  const producer = producerAccountName(ctx.domainSlug);
  if (name === producer && !ctx.isProducer) return `"${producer}" is the domain's producer account; the platform creates it when a first product is approved.`;
  // "<slug>-producer" is the platform's name for every domain's producer, present or future: made by
  // hand inside another namespace it would squat a domain not yet created (issue 30, finding 11).
  // Existing accounts so named (made before this rule) stay managed: only new names are refused.
  if (ctx.newName && !ctx.isProducer && name.endsWith(PRODUCER_SUFFIX)) return `Names ending in "${PRODUCER_SUFFIX}" are the platform's producer accounts; choose another name.`;
  if (ctx.isProducer && name !== producer) return `The producer account of ${ctx.domainSlug} is "${producer}", not "${name}".`;
  const inner = ctx.otherDomainSlugs.find((s) => s.length > ctx.domainSlug.length && name.startsWith(accountNamePrefix(s)));
  if (inner) return `"${name}" lies in the namespace of the ${inner} domain ("${accountNamePrefix(inner)}…").`;
  const reserved = reservedMatch(name, ctx.reserved);
  if (reserved) {
    const what = reserved.match === "PREFIX" ? `names starting with "${reserved.name}"` : `"${reserved.name}"`;
    return `The Kafka principal ${what} is reserved (${reserved.reason}); choose another name.`;
  }
  return null;
}

/**
 * Domain slugs that would collide with the platform: a slug is the first
 * segment of topic names and the prefix of account names, so one under a
 * reserved prefix (e.g. "kappa") would hand out platform principals.
 */
export function domainSlugProblem(slug: string, reserved: readonly ReservedName[]): string | null {
  if (!SLUG_PATTERN.test(slug)) return `Domain slugs are lower-case letters and digits with inner dashes.`;
  const hit = reservedMatch(accountNamePrefix(slug), reserved) ?? reservedMatch(producerAccountName(slug), reserved);
  if (hit) return `The slug "${slug}" would give account names under a reserved principal (${hit.reason}).`;
  return null;
}
