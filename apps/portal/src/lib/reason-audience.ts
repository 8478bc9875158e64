/*
 * Who reads the reason a person types when ending something (issue 31,
 * point 12): the forms say it under the field, by the audience the catalog's
 * notification of that action goes to.
 */

/** Revoke (the product's owners or governance): the account's domain and the product's owners are told. */
export function revokeHint(consumingDomain: string, productDomain: string): string {
  return `Required; the subscriber — every member of ${consumingDomain}, the account's domain — and the owners of ${productDomain} see it, on the subscription page and in their notifications.`;
}

/** Cancel (the subscribing domain's owners): the same notification as a revoke. */
export function cancelHint(consumingDomain: string, productDomain: string): string {
  return `Required; the owners of ${productDomain} and every member of ${consumingDomain} see it, on the subscription page and in their notifications.`;
}

/** Deprecate: every subscribing domain and the product's own domain are told. */
export function deprecateHint(productDomain: string): string {
  return `Required; every subscriber (the members of each subscribing domain) and the members of ${productDomain} see it, with the sunset date, on the product page and in their notifications.`;
}
