-- Environments and promotion (issue 13): registered clusters and per-environment product deployments.
CREATE TYPE "DeploymentStatus" AS ENUM ('IN_REVIEW', 'REJECTED', 'APPROVED', 'ACTIVE');

CREATE TABLE "Cluster" (
    "id" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "primary" BOOLEAN NOT NULL DEFAULT false,
    "bootstrap" TEXT NOT NULL,
    "securityProtocol" TEXT NOT NULL,
    "saslMechanism" TEXT NOT NULL,
    "adminUser" TEXT,
    "adminPasswordSealed" TEXT,
    "maxPartitions" INTEGER,
    "minRetentionMs" BIGINT,
    "createdById" TEXT,
    "lastSeenAt" TIMESTAMP(3),
    "lastError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "Cluster_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "Cluster_environment_key" ON "Cluster"("environment");

CREATE TABLE "ProductDeployment" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "status" "DeploymentStatus" NOT NULL DEFAULT 'IN_REVIEW',
    "topicName" TEXT NOT NULL,
    "partitions" INTEGER NOT NULL,
    "retentionMs" BIGINT NOT NULL,
    "cleanupPolicy" "CleanupPolicy" NOT NULL,
    "configs" JSONB NOT NULL,
    "schemaVersionIds" TEXT[],
    "sourceEnvironment" TEXT NOT NULL,
    "requestedById" TEXT NOT NULL,
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "decisionReason" TEXT,
    "lastError" TEXT,
    "provisionedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    CONSTRAINT "ProductDeployment_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "ProductDeployment_productId_environment_key" ON "ProductDeployment"("productId", "environment");
CREATE INDEX "ProductDeployment_environment_status_idx" ON "ProductDeployment"("environment", "status");
