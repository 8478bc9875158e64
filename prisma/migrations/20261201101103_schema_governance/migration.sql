-- Schema governance: compatibility modes, reviewed schema versions with
-- decisions and fingerprints, global registry ids, major-version links.

-- CreateEnum
CREATE TYPE "CompatibilityMode" AS ENUM ('BACKWARD', 'BACKWARD_TRANSITIVE', 'FORWARD', 'FORWARD_TRANSITIVE', 'FULL', 'FULL_TRANSITIVE', 'NONE');

-- AlterTable
ALTER TABLE "DataProduct" ADD COLUMN     "compatibilityMode" "CompatibilityMode" NOT NULL DEFAULT 'BACKWARD',
ADD COLUMN     "predecessorId" TEXT;

-- AlterTable
ALTER TABLE "SchemaVersion" ADD COLUMN     "compatibility" JSONB,
ADD COLUMN     "decidedAt" TIMESTAMP(3),
ADD COLUMN     "decidedById" TEXT,
ADD COLUMN     "decisionReason" TEXT,
ADD COLUMN     "fingerprint" TEXT,
ADD COLUMN     "proposedById" TEXT,
ADD COLUMN     "schemaId" INTEGER;

-- AlterTable
ALTER TABLE "Subscription" ADD COLUMN     "migratedFromId" TEXT;

-- CreateTable
CREATE TABLE "RegistrySchema" (
    "id" SERIAL NOT NULL,
    "format" "SchemaFormat" NOT NULL,
    "identity" TEXT NOT NULL,
    "normalized" TEXT NOT NULL,
    "canonicalForm" TEXT NOT NULL,
    "fingerprint" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RegistrySchema_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "RegistrySchema_identity_key" ON "RegistrySchema"("identity");

-- CreateIndex
CREATE UNIQUE INDEX "DataProduct_predecessorId_key" ON "DataProduct"("predecessorId");

-- CreateIndex
CREATE INDEX "SchemaVersion_status_createdAt_idx" ON "SchemaVersion"("status", "createdAt");

-- CreateIndex
CREATE INDEX "SchemaVersion_schemaId_idx" ON "SchemaVersion"("schemaId");

-- CreateIndex
CREATE INDEX "Subscription_migratedFromId_idx" ON "Subscription"("migratedFromId");

-- AddForeignKey
ALTER TABLE "DataProduct" ADD CONSTRAINT "DataProduct_predecessorId_fkey" FOREIGN KEY ("predecessorId") REFERENCES "DataProduct"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SchemaVersion" ADD CONSTRAINT "SchemaVersion_schemaId_fkey" FOREIGN KEY ("schemaId") REFERENCES "RegistrySchema"("id") ON DELETE SET NULL ON UPDATE CASCADE;
