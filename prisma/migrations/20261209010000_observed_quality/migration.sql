-- Observed quality (issue 29): the worker samples each live product's new records, evaluates its
-- data-quality rules and keeps per-rule counts per five-minute bucket; the cursor says how far it sampled.
CREATE TABLE "QualitySampleCursor" (
    "productId" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "nextOffset" BIGINT NOT NULL,
    "updatedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "QualitySampleCursor_pkey" PRIMARY KEY ("productId", "partition")
);

CREATE TABLE "QualityObservation" (
    "productId" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "rule" TEXT NOT NULL,
    "passed" INTEGER NOT NULL DEFAULT 0,
    "failed" INTEGER NOT NULL DEFAULT 0,
    "errored" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "QualityObservation_pkey" PRIMARY KEY ("productId", "bucket", "rule")
);

CREATE INDEX "QualityObservation_bucket_idx" ON "QualityObservation"("bucket");
