-- Issue 31, point 1: a new major version no longer deprecates the live one
-- when it is published. The sunset and reason the owner chose wait on the new
-- version's row and are applied to its predecessor when governance approves it.
ALTER TABLE "DataProduct" ADD COLUMN "supersedeSunsetAt" TIMESTAMP(3),
ADD COLUMN "supersedeReason" TEXT;
