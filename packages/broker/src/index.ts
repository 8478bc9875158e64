export { startBroker, type BrokerOptions, type RunningBroker } from "./server.ts";
export { DEFAULT_CONFIG, ConfigError, configFromArgs, parseProperties, resolveConfig, applySettings, CLI_USAGE, type BrokerConfig } from "./config.ts";
export { Control, type ControlAction, type ControlRequest, type ControlRule } from "./control.ts";
export { ApiRegistry, defineApi, type ApiDefinition, type RegisteredApi, type RequestContext, type VersionRange } from "./registry.ts";
export { CORE_APIS } from "./apis/index.ts";
export { BrokerCore, consoleLogger, type Logger } from "./broker.ts";
export { ANONYMOUS, CLUSTER_RESOURCE, allowAllAuthorizer, openGate, type AclOperation, type Authorizer, type ConnectionGate, type Resource, type ResourceType, type Session } from "./session.ts";
export { KafkaError } from "./logs.ts";
export { applySaslAdmin, extractSaslFlags, type SaslFlags } from "./security/sasl/cli-flags.ts";
