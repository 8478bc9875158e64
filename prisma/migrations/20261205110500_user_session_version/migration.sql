-- Revocable sessions (issue 30, finding 13): a JWT session carries the
-- user's session version; the portal refuses a session whose version is not
-- the user's current one. Signing out and losing a role bump it, so a copied
-- session cookie stops working at once instead of living out its 8 hours.
-- The apps' table-level grants on "User" cover the new column.
ALTER TABLE "User" ADD COLUMN "sessionVersion" INTEGER NOT NULL DEFAULT 0;
