-- Showback and chargeback (issue 33): the usage ledger per UTC day, and what
-- the worker's consumer-group history needs for it (the committed offsets, so
-- bytes read per subscription follow from their movement, and the
-- subscription, which outlives the group's latest row).
ALTER TABLE "ConsumerGroupObservationSample" ADD COLUMN "committedOffset" BIGINT, ADD COLUMN "subscriptionId" TEXT;

CREATE TABLE "UsageRecord" (
    "day" DATE NOT NULL,
    "productId" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL DEFAULT '',
    "domainId" TEXT NOT NULL,
    "consumingDomainId" TEXT,
    "recordsIn" BIGINT NOT NULL DEFAULT 0,
    "bytesIn" BIGINT NOT NULL DEFAULT 0,
    "recordsOut" BIGINT NOT NULL DEFAULT 0,
    "bytesOut" BIGINT NOT NULL DEFAULT 0,
    "localByteHours" BIGINT NOT NULL DEFAULT 0,
    "remoteByteHours" BIGINT NOT NULL DEFAULT 0,
    "partitionMinutes" BIGINT NOT NULL DEFAULT 0,
    "observedMinutes" INTEGER NOT NULL DEFAULT 0,
    "revision" INTEGER NOT NULL DEFAULT 1,
    "computedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "UsageRecord_pkey" PRIMARY KEY ("day","productId","subscriptionId")
);

CREATE INDEX "UsageRecord_domainId_day_idx" ON "UsageRecord"("domainId", "day");
CREATE INDEX "UsageRecord_consumingDomainId_day_idx" ON "UsageRecord"("consumingDomainId", "day");
