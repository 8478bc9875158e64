-- Issue 30, finding 5: schema inference reads a topic's records, which no
-- grant covers. Only platform admins request it, or the owners of a claim on
-- the topic a platform admin approved for sampling (recorded here).
ALTER TABLE "TopicClaim" ADD COLUMN "samplingApprovedById" TEXT,
ADD COLUMN "samplingApprovedAt" TIMESTAMP(3);
