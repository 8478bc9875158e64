export { APACHE_KAFKA_VERSION, ensureApacheKafka, startApacheKafka, type ApacheKafkaCluster, type ApacheKafkaNode, type ApacheKafkaOptions } from "./apache-kafka/cluster.ts";
export { EngineUnavailableError, enginesCacheDir, findJava } from "./tools.ts";
export { ensureSchemathesis, SCHEMATHESIS_ENTRY, SCHEMATHESIS_VERSION } from "./schemathesis/install.ts";
