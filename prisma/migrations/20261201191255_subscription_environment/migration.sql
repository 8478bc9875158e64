-- Subscriptions per environment (issue 13): NULL is the primary environment, so every existing row stays there.
ALTER TABLE "Subscription" ADD COLUMN "environment" TEXT;
CREATE INDEX "Subscription_environment_status_idx" ON "Subscription"("environment", "status");
