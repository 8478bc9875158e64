-- Derived data products (issue 34): a product's Flink SQL statement and the
-- Flink job that computes it. The inputs are ProductInput rows (lineage).
CREATE TABLE "DerivedProduct" (
    "productId" TEXT NOT NULL,
    "statement" TEXT NOT NULL,
    "jobId" TEXT,
    "jobState" TEXT,
    "jobStartedAt" TIMESTAMP(3),
    "jobError" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "DerivedProduct_pkey" PRIMARY KEY ("productId")
);
