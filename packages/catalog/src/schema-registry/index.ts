export { authenticateServiceAccount, parseBasicAuthorization, type RegistryCaller } from "./caller.ts";
export { globalConfig, lookupSchema, registerSchema, subjectConfig, testCompatibility, updateSubjectConfig } from "./register.ts";
export { REGISTRY_ERRORS, RegistryError } from "./registry-errors.ts";
export { latestWithMetadata, listSubjects, productOfSubject, schemaById, subjectOf, subjectVersion, subjectVersionsOfSchema } from "./subjects.ts";
export { createDek, DEK_ALGORITHMS, ensureDomainKek, generateDekMaterial, getDek, getKek, kekNameOf, LOCAL_KMS, refuseKekWrite, shredProductDeks, unwrapWithLocalKms, wrapWithLocalKms } from "./dek-registry.ts";
