-- The dead-letter topics' offsets per minute bucket, observed by the worker (issue 29):
-- the DLQ panel's count, rate and chart, and the DLQ_GROWTH alert rule.
CREATE TABLE "DeadLetterSample" (
    "productId" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "startOffset" BIGINT NOT NULL,
    "endOffset" BIGINT NOT NULL,
    "observedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DeadLetterSample_pkey" PRIMARY KEY ("productId", "bucket")
);

CREATE INDEX "DeadLetterSample_bucket_idx" ON "DeadLetterSample"("bucket");
