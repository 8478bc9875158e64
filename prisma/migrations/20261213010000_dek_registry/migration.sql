-- Issue 29, field-level encryption: the owners' opt-in per product (reviewed
-- with the data-quality rules), one platform-created KEK per domain (its local
-- KMS secret sealed under KAPPA_SECRETS_KEY) and the DEKs the registry
-- generates per subject, kept wrapped by the KEK. Retiring a product deletes
-- its DEKs (crypto-shredding).
ALTER TABLE "DataProduct" ADD COLUMN "encryptPii" BOOLEAN NOT NULL DEFAULT false;

CREATE TABLE "RegistryKek" (
    "id" TEXT NOT NULL,
    "domainId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "kmsType" TEXT NOT NULL,
    "kmsKeyId" TEXT NOT NULL,
    "sealedSecret" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RegistryKek_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "RegistryKek_domainId_key" ON "RegistryKek"("domainId");
CREATE UNIQUE INDEX "RegistryKek_name_key" ON "RegistryKek"("name");

CREATE TABLE "RegistryDek" (
    "id" TEXT NOT NULL,
    "kekId" TEXT NOT NULL,
    "productId" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "algorithm" TEXT NOT NULL,
    "encryptedKeyMaterial" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "RegistryDek_pkey" PRIMARY KEY ("id")
);

CREATE UNIQUE INDEX "RegistryDek_kekId_subject_version_algorithm_key" ON "RegistryDek"("kekId", "subject", "version", "algorithm");
CREATE INDEX "RegistryDek_productId_idx" ON "RegistryDek"("productId");
