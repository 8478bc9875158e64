#!/usr/bin/env bash
# Formats the KRaft storage once, with the worker's SCRAM admin account, then
# runs Apache Kafka. Tiered storage needs a RemoteStorageManager plug-in that
# Apache Kafka does not ship; without one the worker shows tiered figures as
# "unknown".
set -euo pipefail
: "${KAFKA_ADMIN_PASSWORD:?set KAFKA_ADMIN_PASSWORD}"
config=/tmp/server.properties
sed "s/\${KAFKA_ADMIN_PASSWORD}/${KAFKA_ADMIN_PASSWORD//\//\\/}/" /etc/kappa/server.properties > "$config"
if [ ! -f /var/lib/kafka/data/meta.properties ]; then
  /opt/kafka/bin/kafka-storage.sh format --config "$config" --cluster-id "${KAFKA_CLUSTER_ID:-kappa-mesh-compose-01}" \
    --add-scram "SCRAM-SHA-512=[name=kappa-admin,password=${KAFKA_ADMIN_PASSWORD}]"
fi
exec /opt/kafka/bin/kafka-server-start.sh "$config"
