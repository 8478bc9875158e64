/*
 * The browser-safe part of policies as code: the document's schema and the
 * pure evaluator (`@kappa/catalog/policy`). Server code adds store.ts
 * (loading, versions) and enforce.ts (refusing and recording in actions).
 */
export * from "./document.ts";
export * from "./evaluate.ts";
export { flattenFields, schemaFields, taggedPiiPaths, type LogicalType, type SchemaField } from "../schema/fields.ts";
export { grantableScopes, isScope, SCOPE_PATTERN } from "../tokens/scopes.ts";
