export { checkCompatibility, compatibilityByMode, type CompatibilityInput, type CompatibilityResult, type Incompatibility, type SchemaFormat, type VersionedSchema } from "./check-compatibility.ts";
export { canonicalSchema, normalizedSchema, schemaFingerprint, schemaIdentity } from "./canonical.ts";
export { COMPATIBILITY_MODES, DEFAULT_COMPATIBILITY_MODE, isCompatibilityMode, modeRequirements, stricterModes, type CompatibilityMode, type Direction } from "./modes.ts";
export { diffSchemaFields, type FieldAspect, type FieldChange, type FieldSummary } from "./field-diff.ts";
