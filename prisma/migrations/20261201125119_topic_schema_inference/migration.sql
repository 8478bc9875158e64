-- Schema inference from sample records of an unmanaged topic (claim form).
CREATE TABLE "TopicSchemaInference" (
    "topic" TEXT NOT NULL,
    "status" TEXT NOT NULL DEFAULT 'PENDING',
    "requestedById" TEXT NOT NULL,
    "requestedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "sampled" INTEGER NOT NULL DEFAULT 0,
    "inferred" BOOLEAN NOT NULL DEFAULT false,
    "format" "SchemaFormat",
    "definition" TEXT,
    "registrySchemaId" INTEGER,
    "explanation" TEXT NOT NULL DEFAULT '',
    "lastError" TEXT,
    "finishedAt" TIMESTAMP(3),

    CONSTRAINT "TopicSchemaInference_pkey" PRIMARY KEY ("topic")
);
