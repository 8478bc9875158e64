#!/usr/bin/env bash
# One Apache Kafka node of docker-compose.yml: the broker settings every Kappa
# Mesh cluster runs with (packages/engines/apache-kafka/cluster.properties,
# the same file `npm run kafka:apache` and the tests use) plus what differs per
# node, then storage formatted once with the worker's SCRAM admin account,
# then Kafka. Tiered storage uses Kafka's own LocalTieredStorage from the jars
# the `kafka-libs` service fetched with the same pom (packages/engines/apache-kafka/pom.xml).
set -euo pipefail
: "${KAFKA_ADMIN_PASSWORD:?set KAFKA_ADMIN_PASSWORD}"
: "${KAFKA_NODE_ID:?set KAFKA_NODE_ID}"
case "$KAFKA_ADMIN_PASSWORD" in
  *[!A-Za-z0-9._~+@!#%^\&*\(\)=-]*) echo "KAFKA_ADMIN_PASSWORD may hold only letters, digits and ._~+-@!#%^&*()= (it goes into JAAS strings)" >&2; exit 2 ;;
esac
user="${KAFKA_ADMIN_USER:-kappa-admin}"
scram="org.apache.kafka.common.security.scram.ScramLoginModule required username=\"$user\" password=\"$KAFKA_ADMIN_PASSWORD\";"
plain="org.apache.kafka.common.security.plain.PlainLoginModule required username=\"$user\" password=\"$KAFKA_ADMIN_PASSWORD\" user_$user=\"$KAFKA_ADMIN_PASSWORD\";"
config=/tmp/server.properties
{
  cat /etc/kappa/cluster.properties
  echo "node.id=$KAFKA_NODE_ID"
  echo "controller.quorum.voters=${KAFKA_CONTROLLER_QUORUM_VOTERS:-1@kafka-1:9093,2@kafka-2:9093,3@kafka-3:9093}"
  echo "listeners=CLIENTS://:9092,CONTROLLER://:9093"
  echo "advertised.listeners=CLIENTS://kafka-$KAFKA_NODE_ID:9092"
  echo "log.dirs=/var/lib/kafka/data"
  echo "super.users=User:$user"
  echo "listener.name.clients.scram-sha-512.sasl.jaas.config=$scram"
  echo "listener.name.clients.scram-sha-256.sasl.jaas.config=$scram"
  echo "listener.name.clients.plain.sasl.jaas.config=$plain"
  echo "listener.name.controller.sasl.enabled.mechanisms=PLAIN"
  echo "listener.name.controller.plain.sasl.jaas.config=$plain"
  echo "rsm.config.dir=/var/lib/kafka/remote"
  echo "rlmm.config.remote.log.metadata.common.client.sasl.jaas.config=$scram"
} > "$config"
chmod 600 "$config"
if [ ! -f /var/lib/kafka/data/meta.properties ]; then
  /opt/kafka/bin/kafka-storage.sh format --config "$config" --cluster-id "${KAFKA_CLUSTER_ID:-kappa-mesh-compose-1}" \
    --add-scram "SCRAM-SHA-512=[name=$user,password=$KAFKA_ADMIN_PASSWORD]" --ignore-formatted
fi
# LocalTieredStorage (the storage module's test artifact) from the kafka-libs volume.
export CLASSPATH="$(ls /opt/kappa-libs/kafka-storage-*-test.jar)"
exec /opt/kafka/bin/kafka-server-start.sh "$config"
