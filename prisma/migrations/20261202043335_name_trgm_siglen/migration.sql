-- The typo search's nearest names (KNN: ORDER BY q <<-> name over the GiST
-- trigram index) with a 256-byte signature instead of pg_trgm's default 12
-- (issue 14). The index's inner pages hold signatures: the union of their
-- names' trigrams hashed into siglen bytes. At 12 bytes (96 bits) a page of
-- a few dozen names sets nearly every bit, so the nearest-first walk cannot
-- tell near pages from far ones and visits most of them: "refnds" read 833
-- buffers for its 100 candidates at 100,000 products (11–13 ms). At 256
-- bytes it reads a few dozen (0.7–1.6 ms); the index grows to ~12 MB.
-- Distances are computed from the names as before, so the nearest names are
-- the same (only which of equally near names fill the 100th place may vary,
-- as it could before).
DROP INDEX "DataProduct_name_trgm_gist_idx";
CREATE INDEX "DataProduct_name_trgm_gist_idx" ON "DataProduct" USING GIST (name gist_trgm_ops(siglen = 256));
