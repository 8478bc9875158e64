-- Derived products (issue 34, life cycle): pause (stop with a savepoint),
-- resume (from it) and replay (a new job from an earlier point, under a new
-- consumer group), as owners' intents the worker carries out.
ALTER TABLE "DerivedProduct" ADD COLUMN "jobPausedAt" TIMESTAMP(3);
ALTER TABLE "DerivedProduct" ADD COLUMN "jobSavepointPath" TEXT;
ALTER TABLE "DerivedProduct" ADD COLUMN "jobGroupId" TEXT;

CREATE TABLE "DerivedJobCommand" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "replayFrom" TEXT,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "progress" TEXT,
    "error" TEXT,
    "requestedById" TEXT NOT NULL,
    "changeRequestId" TEXT,
    "leasedUntil" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "savepointPath" TEXT,
    "fromJobId" TEXT,
    "toJobId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "DerivedJobCommand_pkey" PRIMARY KEY ("id")
);
CREATE INDEX "DerivedJobCommand_productId_createdAt_idx" ON "DerivedJobCommand"("productId", "createdAt");
CREATE INDEX "DerivedJobCommand_status_idx" ON "DerivedJobCommand"("status");
