-- The worker's observer reads the subscriptions changed since its previous cycle (packages/worker/src/observe/catalog-view.ts).
CREATE INDEX "Subscription_updatedAt_idx" ON "Subscription"("updatedAt");
