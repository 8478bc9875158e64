// DescribeCluster (key 60), versions 0-1 (KIP-700; flexible from v0).
//
// Request:  include_cluster_authorized_operations BOOL, endpoint_type INT8 (v1+, 1 = brokers, 2 = controllers)
// Response: throttle_time_ms INT32, error_code INT16, error_message NULLABLE_STRING, endpoint_type INT8 (v1+),
//           cluster_id STRING, controller_id INT32, brokers [broker_id INT32, host STRING, port INT32, rack NULLABLE_STRING],
//           cluster_authorized_operations INT32
//
// One node: it is every broker and the controller. The broker endpoint is the one of
// the listener the client connected to, as Metadata answers. A broker asked for
// controller endpoints answers MISMATCHED_ENDPOINT_TYPE, as Kafka 4.1's brokers do (the oracle run showed it)
// (only controllers serve endpoint_type 2). Like Metadata, no ACL is needed; the
// authorized-operations bitfield is filled when asked for.
import { ApiKey, ErrorCode, type DescribeClusterRequest, type DescribeClusterResponse } from "@kappa/kafka-protocol";
import { defineApi } from "../registry.ts";
import { CLUSTER_RESOURCE } from "../session.ts";
import { AUTHORIZED_OPERATIONS_OMITTED, authorizedOperations } from "./common.ts";

const BROKERS = 1;

export const describeClusterApi = defineApi<DescribeClusterRequest, DescribeClusterResponse>({
  apiKey: ApiKey.DescribeCluster,
  name: "DescribeCluster",
  advertised: { min: 0, max: 1 },
  implemented: { min: 0, max: 1 },
  handle(ctx, req) {
    const b = ctx.broker;
    const endpointType = ctx.apiVersion >= 1 ? req.endpointType : BROKERS;
    if (endpointType !== BROKERS) {
      return {
        throttleTimeMs: 0,
        errorCode: ErrorCode.MISMATCHED_ENDPOINT_TYPE,
        errorMessage: `The request was sent to an endpoint of type BROKER, but we wanted an endpoint of type ${endpointType === 2 ? "CONTROLLER" : String(endpointType)}`,
        endpointType,
        clusterId: b.clusterId,
        controllerId: -1,
        brokers: [],
      };
    }
    const node = b.nodeId;
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      errorMessage: null,
      endpointType: BROKERS,
      clusterId: b.clusterId,
      controllerId: node,
      brokers: [{ brokerId: node, ...b.advertisedFor(ctx.session), rack: null }],
      clusterAuthorizedOperations: req.includeClusterAuthorizedOperations ? authorizedOperations(ctx, "CLUSTER", CLUSTER_RESOURCE.name) : AUTHORIZED_OPERATIONS_OMITTED,
    };
  },
});
