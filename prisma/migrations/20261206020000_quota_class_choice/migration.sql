-- Client quota classes chosen per product and per subscription (issue 33): the
-- class in force (NULL: the policy's default) and a larger class waiting for
-- governance's approval, with its reason and who asked.
ALTER TABLE "DataProduct" ADD COLUMN "quotaClass" TEXT, ADD COLUMN "quotaClassRequested" TEXT, ADD COLUMN "quotaClassReason" TEXT, ADD COLUMN "quotaClassRequestedById" TEXT;
ALTER TABLE "Subscription" ADD COLUMN "quotaClass" TEXT, ADD COLUMN "quotaClassRequested" TEXT, ADD COLUMN "quotaClassReason" TEXT, ADD COLUMN "quotaClassRequestedById" TEXT;

-- The portal request that queued a provisioning task: the catalog sets the
-- transaction-local `kappa.request_id` in an action's transaction, and every
-- task that transaction inserts carries it.
ALTER TABLE "ProvisioningTask" ADD COLUMN "requestId" TEXT DEFAULT NULLIF(current_setting('kappa.request_id'::text, true), ''::text);
