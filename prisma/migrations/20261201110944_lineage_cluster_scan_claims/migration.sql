-- Operating the mesh (issue 13, part 2): declared product inputs, topic claims,
-- and the worker's cluster scan (every topic; consumer groups per topic).

-- CreateTable
CREATE TABLE "ProductInput" (
    "productId" TEXT NOT NULL,
    "inputProductId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProductInput_pkey" PRIMARY KEY ("productId","inputProductId"),
    CONSTRAINT "ProductInput_not_self" CHECK ("productId" <> "inputProductId")
);

-- CreateIndex
CREATE INDEX "ProductInput_inputProductId_idx" ON "ProductInput"("inputProductId");

-- AddForeignKey
ALTER TABLE "ProductInput" ADD CONSTRAINT "ProductInput_productId_fkey" FOREIGN KEY ("productId") REFERENCES "DataProduct"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "ProductInput" ADD CONSTRAINT "ProductInput_inputProductId_fkey" FOREIGN KEY ("inputProductId") REFERENCES "DataProduct"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "TopicClaim" (
    "productId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "foundAcls" JSONB NOT NULL DEFAULT '[]',
    "removeAcls" JSONB NOT NULL DEFAULT '[]',
    "aclsDecidedById" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "TopicClaim_pkey" PRIMARY KEY ("productId")
);

-- CreateIndex
CREATE UNIQUE INDEX "TopicClaim_topic_key" ON "TopicClaim"("topic");

-- AddForeignKey
ALTER TABLE "TopicClaim" ADD CONSTRAINT "TopicClaim_productId_fkey" FOREIGN KEY ("productId") REFERENCES "DataProduct"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "ClusterTopic" (
    "name" TEXT NOT NULL,
    "productId" TEXT,
    "partitions" INTEGER NOT NULL,
    "configs" JSONB NOT NULL DEFAULT '{}',
    "endOffset" BIGINT,
    "earliestOffset" BIGINT,
    "sizeBytes" BIGINT,
    "acls" JSONB NOT NULL DEFAULT '[]',
    "groups" JSONB NOT NULL DEFAULT '[]',
    "observedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ClusterTopic_pkey" PRIMARY KEY ("name")
);

-- CreateIndex
CREATE INDEX "ClusterTopic_productId_idx" ON "ClusterTopic"("productId");

-- CreateTable
CREATE TABLE "GroupTopicUsage" (
    "groupId" TEXT NOT NULL,
    "topic" TEXT NOT NULL,
    "serviceAccountId" TEXT,
    "state" TEXT NOT NULL,
    "members" INTEGER NOT NULL,
    "committedSum" BIGINT NOT NULL,
    "committedPartitions" INTEGER NOT NULL,
    "firstSeenAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastActiveAt" TIMESTAMP(3),
    "observedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "GroupTopicUsage_pkey" PRIMARY KEY ("groupId","topic")
);

-- CreateIndex
CREATE INDEX "GroupTopicUsage_topic_idx" ON "GroupTopicUsage"("topic");

-- CreateIndex
CREATE INDEX "GroupTopicUsage_serviceAccountId_idx" ON "GroupTopicUsage"("serviceAccountId");
