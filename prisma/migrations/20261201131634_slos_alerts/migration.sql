-- SLOs and alerts: subscriber lag objectives, product freshness with history, alert states (hysteresis) and alert history.
-- CreateTable
CREATE TABLE "SubscriptionObjective" (
    "subscriptionId" TEXT NOT NULL,
    "maxLagRecords" BIGINT,
    "maxLagSeconds" INTEGER,
    "updatedById" TEXT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "SubscriptionObjective_pkey" PRIMARY KEY ("subscriptionId")
);

-- CreateTable
CREATE TABLE "ProductFreshness" (
    "productId" TEXT NOT NULL,
    "lastRecordAt" TIMESTAMP(3),
    "ageMs" BIGINT,
    "status" TEXT NOT NULL,
    "observedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProductFreshness_pkey" PRIMARY KEY ("productId")
);

-- CreateTable
CREATE TABLE "ProductFreshnessSample" (
    "productId" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "ageMs" BIGINT,
    "status" TEXT NOT NULL,

    CONSTRAINT "ProductFreshnessSample_pkey" PRIMARY KEY ("productId","bucket")
);

-- CreateTable
CREATE TABLE "AlertState" (
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "groupId" TEXT,
    "breachingSince" TIMESTAMP(3),
    "clearSince" TIMESTAMP(3),
    "firingAlertId" TEXT,
    "lastValue" DOUBLE PRECISION,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "AlertState_pkey" PRIMARY KEY ("key")
);

-- CreateTable
CREATE TABLE "Alert" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "groupId" TEXT,
    "threshold" DOUBLE PRECISION NOT NULL,
    "value" DOUBLE PRECISION NOT NULL,
    "peakValue" DOUBLE PRECISION NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'FIRING',
    "message" TEXT NOT NULL,
    "firedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "resolvedAt" TIMESTAMP(3),

    CONSTRAINT "Alert_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProductFreshnessSample_bucket_idx" ON "ProductFreshnessSample"("bucket");

-- CreateIndex
CREATE INDEX "Alert_productId_firedAt_idx" ON "Alert"("productId", "firedAt");

-- CreateIndex
CREATE INDEX "Alert_subscriptionId_firedAt_idx" ON "Alert"("subscriptionId", "firedAt");

-- CreateIndex
CREATE INDEX "Alert_status_idx" ON "Alert"("status");

-- AddForeignKey
ALTER TABLE "SubscriptionObjective" ADD CONSTRAINT "SubscriptionObjective_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

