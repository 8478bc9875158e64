export { authenticateServiceAccount, parseBasicAuthorization, type RegistryCaller } from "./caller.ts";
export { globalConfig, lookupSchema, registerSchema, subjectConfig, testCompatibility, updateSubjectConfig } from "./register.ts";
export { REGISTRY_ERRORS, RegistryError } from "./registry-errors.ts";
export { listSubjects, productOfSubject, schemaById, subjectOf, subjectVersion, subjectVersionsOfSchema } from "./subjects.ts";
