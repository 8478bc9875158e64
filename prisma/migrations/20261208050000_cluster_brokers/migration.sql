-- The brokers of each cluster as the worker sees them in its metadata, and
-- their outages (issue 28): the admin's clusters page shows a broker that is
-- down, since when, and when it came back.
CREATE TABLE "ClusterBroker" (
    "clusterId" TEXT NOT NULL,
    "nodeId" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "lastSeenAt" TIMESTAMP(3) NOT NULL,
    "downSince" TIMESTAMP(3),

    CONSTRAINT "ClusterBroker_pkey" PRIMARY KEY ("clusterId", "nodeId")
);

CREATE TABLE "ClusterBrokerOutage" (
    "id" TEXT NOT NULL,
    "clusterId" TEXT NOT NULL,
    "nodeId" INTEGER NOT NULL,
    "address" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL,
    "endedAt" TIMESTAMP(3),

    CONSTRAINT "ClusterBrokerOutage_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "ClusterBrokerOutage_clusterId_startedAt_idx" ON "ClusterBrokerOutage"("clusterId", "startedAt");

ALTER TABLE "ClusterBroker" ADD CONSTRAINT "ClusterBroker_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ClusterBrokerOutage" ADD CONSTRAINT "ClusterBrokerOutage_clusterId_fkey" FOREIGN KEY ("clusterId") REFERENCES "Cluster"("id") ON DELETE CASCADE ON UPDATE CASCADE;
