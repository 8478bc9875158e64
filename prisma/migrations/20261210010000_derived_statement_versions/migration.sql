-- Derived products (issue 34, life cycle): a changed statement is a new
-- version of the product, reviewed (change request DERIVED_STATEMENT) and
-- carried out by the worker (job command STATEMENT: stop with a savepoint,
-- the new statement restoring it, else from the inputs' committed offsets).
ALTER TABLE "DerivedProduct" ADD COLUMN "statementVersion" INTEGER NOT NULL DEFAULT 1;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobStatementVersion" INTEGER;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobRestoredFromSavepoint" BOOLEAN;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobRestoreNote" TEXT;

ALTER TABLE "DerivedJobCommand" ADD COLUMN "statementVersion" INTEGER;

CREATE TABLE "DerivedStatementVersion" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "statement" TEXT NOT NULL,
    "schemaVersion" INTEGER,
    "changeRequestId" TEXT,
    "requestedById" TEXT,
    "approvedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DerivedStatementVersion_pkey" PRIMARY KEY ("id")
);
CREATE UNIQUE INDEX "DerivedStatementVersion_productId_version_key" ON "DerivedStatementVersion"("productId", "version");
