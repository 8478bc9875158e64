-- Access recertification (issue 13, part 3): optional expiry, last certification and the schedule's notice.

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN "expiresAt" TIMESTAMP(3),
ADD COLUMN "certifiedAt" TIMESTAMP(3),
ADD COLUMN "certifiedById" TEXT,
ADD COLUMN "recertNotifiedAt" TIMESTAMP(3);

-- CreateIndex
CREATE INDEX "Subscription_expiresAt_idx" ON "Subscription"("expiresAt");
