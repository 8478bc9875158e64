-- Admin management, single sign-on group mapping, audit request context and
-- reviewed product changes (issue 13, part 1).

-- CreateEnum
CREATE TYPE "GrantSource" AS ENUM ('MANUAL', 'SSO');

-- CreateEnum
CREATE TYPE "ChangeRequestStatus" AS ENUM ('REQUESTED', 'APPROVED', 'REJECTED');

-- AlterTable
ALTER TABLE "Domain" ADD COLUMN "archivedAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "User" ADD COLUMN "globalRoleSource" "GrantSource" NOT NULL DEFAULT 'MANUAL',
ADD COLUMN "lastSignInAt" TIMESTAMP(3);

-- AlterTable
ALTER TABLE "Membership" ADD COLUMN "source" "GrantSource" NOT NULL DEFAULT 'MANUAL';

-- AlterTable (adding columns fires no row trigger: the append-only rule holds)
ALTER TABLE "AuditEvent" ADD COLUMN "clientAddress" TEXT,
ADD COLUMN "userAgent" TEXT;

-- CreateIndex
CREATE INDEX "AuditEvent_action_at_idx" ON "AuditEvent"("action", "at");

-- CreateTable
CREATE TABLE "SsoGroupMapping" (
    "id" TEXT NOT NULL,
    "group" TEXT NOT NULL,
    "domainId" TEXT,
    "role" "MembershipRole",
    "globalRole" "GlobalRole",
    "createdById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SsoGroupMapping_pkey" PRIMARY KEY ("id"),
    -- Either a domain role or a global role, never both, never neither.
    CONSTRAINT "SsoGroupMapping_one_target" CHECK (
      ("domainId" IS NOT NULL AND "role" IS NOT NULL AND "globalRole" IS NULL) OR
      ("domainId" IS NULL AND "role" IS NULL AND "globalRole" IS NOT NULL)
    )
);

-- CreateIndex
CREATE UNIQUE INDEX "SsoGroupMapping_group_domainId_key" ON "SsoGroupMapping"("group", "domainId");

-- One global role per group (NULL domainIds are distinct in the index above).
CREATE UNIQUE INDEX "SsoGroupMapping_group_global_key" ON "SsoGroupMapping"("group") WHERE "domainId" IS NULL;

-- CreateIndex
CREATE INDEX "SsoGroupMapping_group_idx" ON "SsoGroupMapping"("group");

-- AddForeignKey
ALTER TABLE "SsoGroupMapping" ADD CONSTRAINT "SsoGroupMapping_domainId_fkey" FOREIGN KEY ("domainId") REFERENCES "Domain"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "ProductChangeRequest" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "reason" TEXT NOT NULL,
    "status" "ChangeRequestStatus" NOT NULL DEFAULT 'REQUESTED',
    "requestedById" TEXT NOT NULL,
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "decisionReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "ProductChangeRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ProductChangeRequest_status_createdAt_idx" ON "ProductChangeRequest"("status", "createdAt");

-- CreateIndex
CREATE INDEX "ProductChangeRequest_productId_idx" ON "ProductChangeRequest"("productId");

-- At most one open change of each kind per product.
CREATE UNIQUE INDEX "ProductChangeRequest_one_open" ON "ProductChangeRequest"("productId", "kind") WHERE "status" = 'REQUESTED';

-- AddForeignKey
ALTER TABLE "ProductChangeRequest" ADD CONSTRAINT "ProductChangeRequest_productId_fkey" FOREIGN KEY ("productId") REFERENCES "DataProduct"("id") ON DELETE CASCADE ON UPDATE CASCADE;
