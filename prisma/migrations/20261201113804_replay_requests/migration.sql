-- Governed replay: a subscriber's consumer-group reset with its preview, applied by the worker.
-- CreateTable
CREATE TABLE "ReplayRequest" (
    "id" TEXT NOT NULL,
    "subscriptionId" TEXT NOT NULL,
    "groupId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "spec" JSONB NOT NULL,
    "targets" JSONB NOT NULL,
    "preview" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "result" JSONB,
    "error" TEXT,
    "requestedById" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "appliedAt" TIMESTAMP(3),

    CONSTRAINT "ReplayRequest_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "ReplayRequest_subscriptionId_createdAt_idx" ON "ReplayRequest"("subscriptionId", "createdAt");

-- AddForeignKey
ALTER TABLE "ReplayRequest" ADD CONSTRAINT "ReplayRequest_subscriptionId_fkey" FOREIGN KEY ("subscriptionId") REFERENCES "Subscription"("id") ON DELETE CASCADE ON UPDATE CASCADE;

