-- Derived products (issue 34): when and why the worker stopped a job that must
-- no longer run (an input subscription revoked, an input or the product retired).
ALTER TABLE "DerivedProduct" ADD COLUMN "jobStoppedAt" TIMESTAMP(3);
ALTER TABLE "DerivedProduct" ADD COLUMN "jobStopReason" TEXT;
