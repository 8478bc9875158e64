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

/** Kafka user name of a domain's producer account. */
export function producerAccountName(domainSlug: string): string {
  return `${domainSlug}-producer`;
}

/** Consumer groups a subscriber may use: everything under its account name. */
export function consumerGroupPrefix(accountName: string): string {
  return `${accountName}.`;
}
