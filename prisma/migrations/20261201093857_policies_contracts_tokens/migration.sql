-- Policies as code, contract-managed products, API tokens (issue 11).

-- AlterTable
ALTER TABLE "DataProduct" ADD COLUMN "keyFields" TEXT[] DEFAULT ARRAY[]::TEXT[],
ADD COLUMN "contractSource" TEXT,
ADD COLUMN "contractAppliedAt" TIMESTAMP(3);

-- CreateEnum
CREATE TYPE "ApiTokenKind" AS ENUM ('PERSONAL', 'SERVICE');

-- CreateTable
CREATE TABLE "PolicyVersion" (
    "version" INTEGER NOT NULL,
    "source" TEXT NOT NULL,
    "document" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "createdById" TEXT,
    "createdByEmail" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyVersion_pkey" PRIMARY KEY ("version")
);

-- CreateTable
CREATE TABLE "PolicyEvaluation" (
    "id" TEXT NOT NULL,
    "policyVersion" INTEGER NOT NULL,
    "event" TEXT NOT NULL,
    "entityType" TEXT NOT NULL,
    "entityId" TEXT,
    "decision" TEXT NOT NULL,
    "results" JSONB NOT NULL,
    "failures" INTEGER NOT NULL,
    "warnings" INTEGER NOT NULL,
    "actorId" TEXT,
    "actorEmail" TEXT NOT NULL,
    "tokenId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PolicyEvaluation_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ApiToken" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kind" "ApiTokenKind" NOT NULL DEFAULT 'PERSONAL',
    "userId" TEXT NOT NULL,
    "domainId" TEXT,
    "scopes" TEXT[],
    "prefix" TEXT NOT NULL,
    "secretHash" TEXT NOT NULL,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "lastUsedAt" TIMESTAMP(3),
    "revokedAt" TIMESTAMP(3),
    "revokedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ApiToken_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "PolicyEvaluation_entityType_entityId_createdAt_idx" ON "PolicyEvaluation"("entityType", "entityId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "ApiToken_secretHash_key" ON "ApiToken"("secretHash");

-- CreateIndex
CREATE INDEX "ApiToken_userId_idx" ON "ApiToken"("userId");

-- CreateIndex
CREATE INDEX "ApiToken_domainId_idx" ON "ApiToken"("domainId");

-- AddForeignKey
ALTER TABLE "ApiToken" ADD CONSTRAINT "ApiToken_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- Policy versions and evaluations are history: never rewritten (as the audit log).
CREATE FUNCTION "policy_history_append_only"() RETURNS trigger AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END;
$$ LANGUAGE plpgsql;

CREATE TRIGGER "PolicyVersion_append_only"
  BEFORE UPDATE OR DELETE ON "PolicyVersion"
  FOR EACH ROW EXECUTE FUNCTION "policy_history_append_only"();

CREATE TRIGGER "PolicyEvaluation_append_only"
  BEFORE UPDATE OR DELETE ON "PolicyEvaluation"
  FOR EACH ROW EXECUTE FUNCTION "policy_history_append_only"();
