-- Later changes carried to promoted environments (issue 13): a definition promoted again waits here for review.
ALTER TABLE "ProductDeployment" ADD COLUMN "pendingUpdate" JSONB;
