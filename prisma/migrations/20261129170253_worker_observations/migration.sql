-- AlterTable
ALTER TABLE "ServiceAccount" ADD COLUMN     "secretCiphertext" TEXT;

-- CreateTable
CREATE TABLE "TopicObservation" (
    "topic" TEXT NOT NULL,
    "productId" TEXT,
    "partitions" INTEGER NOT NULL,
    "endOffset" BIGINT NOT NULL,
    "earliestOffset" BIGINT NOT NULL,
    "earliestLocalOffset" BIGINT,
    "latestTieredOffset" BIGINT,
    "localBytes" BIGINT,
    "remoteBytes" BIGINT,
    "messagesPerSecond" DOUBLE PRECISION,
    "partitionDetail" JSONB NOT NULL DEFAULT '[]',
    "observedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TopicObservation_pkey" PRIMARY KEY ("topic")
);

-- CreateTable
CREATE TABLE "TopicObservationSample" (
    "id" BIGSERIAL NOT NULL,
    "topic" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "endOffset" BIGINT NOT NULL,
    "earliestOffset" BIGINT NOT NULL,
    "localBytes" BIGINT,
    "remoteBytes" BIGINT,
    "messagesPerSecond" DOUBLE PRECISION,

    CONSTRAINT "TopicObservationSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ConsumerGroupObservation" (
    "groupId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "subscriptionId" TEXT,
    "serviceAccountId" TEXT,
    "state" TEXT NOT NULL,
    "members" INTEGER NOT NULL,
    "totalLag" BIGINT NOT NULL,
    "timeLagMs" BIGINT,
    "partitionDetail" JSONB NOT NULL DEFAULT '[]',
    "observedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConsumerGroupObservation_pkey" PRIMARY KEY ("groupId","topic")
);

-- CreateTable
CREATE TABLE "ConsumerGroupObservationSample" (
    "id" BIGSERIAL NOT NULL,
    "groupId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "bucket" TIMESTAMP(3) NOT NULL,
    "totalLag" BIGINT NOT NULL,
    "timeLagMs" BIGINT,

    CONSTRAINT "ConsumerGroupObservationSample_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ReconcileRun" (
    "id" BIGSERIAL NOT NULL,
    "workerId" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "finishedAt" TIMESTAMP(3),
    "driftCount" INTEGER NOT NULL DEFAULT 0,
    "drift" JSONB NOT NULL DEFAULT '[]',
    "error" TEXT,

    CONSTRAINT "ReconcileRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "WorkerInstance" (
    "workerId" TEXT NOT NULL,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "status" TEXT NOT NULL,

    CONSTRAINT "WorkerInstance_pkey" PRIMARY KEY ("workerId")
);

-- CreateIndex
CREATE INDEX "TopicObservation_productId_idx" ON "TopicObservation"("productId");

-- CreateIndex
CREATE INDEX "TopicObservationSample_bucket_idx" ON "TopicObservationSample"("bucket");

-- CreateIndex
CREATE UNIQUE INDEX "TopicObservationSample_topic_bucket_key" ON "TopicObservationSample"("topic", "bucket");

-- CreateIndex
CREATE INDEX "ConsumerGroupObservation_subscriptionId_idx" ON "ConsumerGroupObservation"("subscriptionId");

-- CreateIndex
CREATE INDEX "ConsumerGroupObservation_topic_idx" ON "ConsumerGroupObservation"("topic");

-- CreateIndex
CREATE INDEX "ConsumerGroupObservationSample_bucket_idx" ON "ConsumerGroupObservationSample"("bucket");

-- CreateIndex
CREATE UNIQUE INDEX "ConsumerGroupObservationSample_groupId_topic_bucket_key" ON "ConsumerGroupObservationSample"("groupId", "topic", "bucket");

-- CreateIndex
CREATE INDEX "ReconcileRun_startedAt_idx" ON "ReconcileRun"("startedAt");
