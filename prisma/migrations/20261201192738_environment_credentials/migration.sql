-- Credentials on registered clusters (issue 13): the sealed SCRAM credential of an account and where it is installed.
ALTER TABLE "ServiceAccount" ADD COLUMN "scramSealed" TEXT;

CREATE TABLE "EnvironmentCredential" (
    "serviceAccountId" TEXT NOT NULL,
    "environment" TEXT NOT NULL,
    "issuedAt" TIMESTAMP(3) NOT NULL,
    "installedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "EnvironmentCredential_pkey" PRIMARY KEY ("serviceAccountId","environment")
);
