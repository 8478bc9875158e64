-- Issue 31, point 2: a claim's review decides each found ACL (remove, adopt as a
-- subscription, or keep as a documented exception).
ALTER TABLE "TopicClaim" ADD COLUMN "aclDecisions" JSONB NOT NULL DEFAULT '[]', ADD COLUMN "aclsDecidedAt" TIMESTAMP(3);

-- Issue 31, point 5: owners acknowledge an alert, or silence its rule for a time.
ALTER TABLE "Alert" ADD COLUMN "acknowledgedAt" TIMESTAMP(3), ADD COLUMN "acknowledgedById" TEXT;

CREATE TABLE "AlertSilence" (
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "groupId" TEXT,
    "alertId" TEXT NOT NULL,
    "until" TIMESTAMP(3) NOT NULL,
    "reason" TEXT NOT NULL DEFAULT '',
    "silencedById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AlertSilence_pkey" PRIMARY KEY ("key")
);

CREATE INDEX "AlertSilence_until_idx" ON "AlertSilence"("until");
