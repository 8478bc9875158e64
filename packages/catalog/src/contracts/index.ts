export { contractToDesired, MAX_CONTRACT_LENGTH, parseContract, readContractText, type DesiredProduct, type ParsedContract } from "./from-contract.ts";
export { KAPPA_PROPERTIES, ODCS_API_VERSION, type OdcsContract } from "./odcs-types.ts";
export { productToContract, retentionSla, type ContractProductInput } from "./to-contract.ts";
export { odcsProblems, type OdcsProblem } from "./validate.ts";
