-- Forgetting a broker that is down for good (issue 28: a decommissioned node
-- would stay "down" for ever). A platform admin asks in the portal (a row of
-- ClusterBrokerForget); the worker, which alone writes the brokers and their
-- outages, carries it out at its next look at the cluster if the broker is
-- still down: its ClusterBroker row goes and its open outage ends, marked
-- with forgottenAt.
ALTER TABLE "ClusterBrokerOutage" ADD COLUMN "forgottenAt" TIMESTAMP(3);

CREATE TABLE "ClusterBrokerForget" (
    "clusterId" TEXT NOT NULL,
    "nodeId" INTEGER NOT NULL,
    "requestedById" TEXT NOT NULL,
    "reason" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClusterBrokerForget_pkey" PRIMARY KEY ("clusterId", "nodeId")
);

ALTER TABLE "ClusterBrokerForget" ADD CONSTRAINT "ClusterBrokerForget_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
