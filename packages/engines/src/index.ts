export { APACHE_FLINK_VERSION, FLINK_KAFKA_CONNECTOR_VERSION, ensureApacheFlink, startFlink, type ApacheFlinkCluster, type ApacheFlinkJars, type ApacheFlinkOptions, type FlinkComponent } from "./apache-flink/cluster.ts";
export { APACHE_KAFKA_VERSION, ensureApacheKafka, startApacheKafka, type ApacheKafkaCluster, type ApacheKafkaNode, type ApacheKafkaOptions } from "./apache-kafka/cluster.ts";
export { EngineUnavailableError, engineJvmOptions, enginesCacheDir, findJava } from "./tools.ts";
export { ensureSchemathesis, SCHEMATHESIS_ENTRY, SCHEMATHESIS_VERSION } from "./schemathesis/install.ts";
