-- Latest-state view of compacted products, PII-needed subscriptions and masking lists, platform principal credentials, rate-limit counters.
-- AlterTable
ALTER TABLE "DataProduct" ADD COLUMN     "maskedFields" TEXT[] DEFAULT ARRAY[]::TEXT[];

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "piiApprovedAt" TIMESTAMP(3),
ADD COLUMN     "piiApprovedById" TEXT,
ADD COLUMN     "piiJustification" TEXT,
ADD COLUMN     "piiRequested" BOOLEAN NOT NULL DEFAULT false;

-- CreateTable
CREATE TABLE "StateView" (
    "productId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "generation" INTEGER NOT NULL DEFAULT 1,
    "appliedGeneration" INTEGER NOT NULL DEFAULT 0,
    "status" TEXT NOT NULL DEFAULT 'BUILDING',
    "keyCount" BIGINT NOT NULL DEFAULT 0,
    "leasedBy" TEXT,
    "leaseUntil" TIMESTAMP(3),
    "lastError" TEXT,
    "rebuildRequestedAt" TIMESTAMP(3),
    "rebuildRequestedBy" TEXT,
    "lastAppliedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StateView_pkey" PRIMARY KEY ("productId")
);

-- CreateTable
CREATE TABLE "StateViewPartition" (
    "productId" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "nextOffset" BIGINT NOT NULL DEFAULT 0,
    "endOffset" BIGINT NOT NULL DEFAULT 0,
    "lastRecordAt" TIMESTAMP(3),
    "caughtUpAt" TIMESTAMP(3),
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "StateViewPartition_pkey" PRIMARY KEY ("productId","partition")
);

-- CreateTable
CREATE TABLE "StateEntry" (
    "productId" TEXT NOT NULL,
    "key" BYTEA NOT NULL,
    "value" BYTEA NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "timestamp" TIMESTAMP(3) NOT NULL,
    "headers" JSONB NOT NULL DEFAULT '[]',

    CONSTRAINT "StateEntry_pkey" PRIMARY KEY ("productId","key")
);

-- CreateTable
CREATE TABLE "PlatformCredential" (
    "name" TEXT NOT NULL,
    "mechanism" TEXT NOT NULL,
    "secretCiphertext" TEXT NOT NULL,
    "issuedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PlatformCredential_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "RateLimitBucket" (
    "key" TEXT NOT NULL,
    "windowStart" TIMESTAMP(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "RateLimitBucket_pkey" PRIMARY KEY ("key","windowStart")
);

-- CreateIndex
CREATE INDEX "RateLimitBucket_windowStart_idx" ON "RateLimitBucket"("windowStart");

-- AddForeignKey
ALTER TABLE "StateViewPartition" ADD CONSTRAINT "StateViewPartition_productId_fkey" FOREIGN KEY ("productId") REFERENCES "StateView"("productId") ON DELETE CASCADE ON UPDATE CASCADE;

