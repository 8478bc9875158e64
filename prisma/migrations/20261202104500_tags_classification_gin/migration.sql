-- A tag and a classification together (the catalog's two filter menus,
-- issue 14) from one GIN index over both columns. With an index per column
-- the planner ANDs two bitmaps, one of them a quarter of the catalog (every
-- CONFIDENTIAL product: ~25,000 entries at 100,000 products) to keep the
-- ~1,100 of the ~5,000 products with the tag; the two-column index finds
-- those entries directly (the capped count of tag=pii&classification=CONFIDENTIAL at
-- 100,000 products, which the count cannot skip: 6.1 -> 2.1 ms at best,
-- 10.6 -> 2.5 ms median, load 5-6; the heap pages read are the same).
-- classification is an enum, which GIN indexes only through
-- btree_gin's operator classes (contrib, shipped with PostgreSQL and with
-- embedded-postgres; a trusted extension, like pg_trgm in the first
-- migration). Plain CREATE INDEX, as every migration here: migrate.ts
-- applies a migration as one transaction, where CONCURRENTLY cannot run.
CREATE EXTENSION IF NOT EXISTS btree_gin;
CREATE INDEX "DataProduct_tags_classification_idx" ON "DataProduct" USING GIN (tags, classification);
