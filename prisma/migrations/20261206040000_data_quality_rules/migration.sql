-- Data-quality rules in the contract (issue 29): CEL conditions served by the
-- Schema Registry API as each version's ruleSet, run by the clients' serializers.
CREATE TYPE "DataQualityRuleKind" AS ENUM ('CEL', 'CEL_FIELD');
CREATE TYPE "DataQualityRuleMode" AS ENUM ('WRITE', 'READ', 'WRITEREAD');
CREATE TYPE "DataQualityRuleAction" AS ENUM ('ERROR', 'DLQ', 'NONE');

CREATE TABLE "DataQualityRule" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "position" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "kind" "DataQualityRuleKind" NOT NULL,
    "expression" TEXT NOT NULL,
    "mode" "DataQualityRuleMode" NOT NULL,
    "onFailure" "DataQualityRuleAction" NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DataQualityRule_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "DataQualityRule_productId_name_key" ON "DataQualityRule"("productId", "name");
CREATE UNIQUE INDEX "DataQualityRule_productId_position_key" ON "DataQualityRule"("productId", "position");

ALTER TABLE "DataQualityRule" ADD CONSTRAINT "DataQualityRule_productId_fkey" FOREIGN KEY ("productId") REFERENCES "DataProduct"("id") ON DELETE CASCADE ON UPDATE CASCADE;
