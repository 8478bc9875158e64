-- Derived products (issue 34): the job's service account, its sealed password
-- and the job as last observed from Flink's REST API.
ALTER TABLE "DerivedProduct" ADD COLUMN "serviceAccountId" TEXT;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobSecretSealed" TEXT;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobMetrics" JSONB;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobObservedAt" TIMESTAMP(3);
CREATE UNIQUE INDEX "DerivedProduct_serviceAccountId_key" ON "DerivedProduct"("serviceAccountId");
