-- Redrive of dead letters back to the product topic (issue 29): the owners'
-- requests (four eyes on CONFIDENTIAL and above) and one row per redriven DLQ
-- record, whose key makes each dead letter redriven at most once.
CREATE TABLE "RedriveRequest" (
    "id" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "dlqTopic" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "selection" JSONB NOT NULL,
    "upTo" JSONB NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'REQUESTED',
    "reason" TEXT NOT NULL DEFAULT '',
    "previewed" INTEGER NOT NULL,
    "matched" INTEGER NOT NULL DEFAULT 0,
    "sent" INTEGER NOT NULL DEFAULT 0,
    "alreadyRedriven" INTEGER NOT NULL DEFAULT 0,
    "skipped" INTEGER NOT NULL DEFAULT 0,
    "skippedReasons" JSONB,
    "error" TEXT,
    "requestedById" TEXT NOT NULL,
    "decidedById" TEXT,
    "decidedAt" TIMESTAMP(3),
    "decisionReason" TEXT,
    "runToken" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "startedAt" TIMESTAMP(3),
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "RedriveRequest_pkey" PRIMARY KEY ("id")
);

CREATE INDEX "RedriveRequest_productId_createdAt_idx" ON "RedriveRequest"("productId", "createdAt");
CREATE INDEX "RedriveRequest_status_idx" ON "RedriveRequest"("status");

CREATE TABLE "RedrivenRecord" (
    "productId" TEXT NOT NULL,
    "partition" INTEGER NOT NULL,
    "offset" BIGINT NOT NULL,
    "requestId" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'CLAIMED',
    "scanFrom" JSONB,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sentAt" TIMESTAMP(3),

    CONSTRAINT "RedrivenRecord_pkey" PRIMARY KEY ("productId", "partition", "offset")
);

CREATE INDEX "RedrivenRecord_requestId_idx" ON "RedrivenRecord"("requestId");
