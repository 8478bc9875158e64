/*
 * The catalog's enumerations as plain constants, with no validation library
 * attached: pages that only need the lists (the catalog's filter menus) import
 * these and keep zod out of their browser bundle. validation.ts builds its
 * schemas from the same constants.
 */

export const CLASSIFICATIONS = ["PUBLIC", "INTERNAL", "CONFIDENTIAL", "RESTRICTED"] as const;
export const CLEANUP_POLICIES = ["delete", "compact"] as const;
export const SCHEMA_FORMATS = ["AVRO", "JSON_SCHEMA"] as const;
export const PRODUCT_STATUSES = ["DRAFT", "IN_REVIEW", "APPROVED", "PROVISIONING", "ACTIVE", "DEPRECATED", "RETIRED", "REJECTED"] as const;
/** Orders the catalog search offers (`relevance` is the default with search words, `updated` without). */
export const SEARCH_SORTS = ["relevance", "name", "updated", "created"] as const;
