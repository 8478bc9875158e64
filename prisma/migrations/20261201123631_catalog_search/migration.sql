-- Catalog search at 100,000 products (issue 14): a weighted full-text vector,
-- a trigram GiST index for typos ("did you mean"), indexes for every sort, and
-- tag counts maintained by triggers so the filter menu never scans products.

-- Immutable wrappers: a generated column may only use immutable expressions
-- (array_to_string is only STABLE in general; for text[] it is immutable).
CREATE FUNCTION kappa_search_words(value text) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE RETURNS NULL ON NULL INPUT
  AS $$ SELECT regexp_replace(value, '[._-]+', ' ', 'g') $$;
CREATE FUNCTION kappa_tags_text(tags text[]) RETURNS text
  LANGUAGE sql IMMUTABLE PARALLEL SAFE
  AS $$ SELECT coalesce(array_to_string(tags, ' '), '') $$;

-- Name and topic weigh most (A), then tags (B), then the description (C).
-- English stemming: "orders" finds "Order Events"; prefixes (refund:*) are matched at query time.
ALTER TABLE "DataProduct" ADD COLUMN "searchVector" tsvector GENERATED ALWAYS AS (
  setweight(to_tsvector('english'::regconfig, name), 'A') ||
  setweight(to_tsvector('english'::regconfig, kappa_search_words("topicName")), 'A') ||
  setweight(to_tsvector('english'::regconfig, kappa_tags_text(tags)), 'B') ||
  setweight(to_tsvector('english'::regconfig, description), 'C')
) STORED;
CREATE INDEX "DataProduct_searchVector_idx" ON "DataProduct" USING GIN ("searchVector");

-- Typos: nearest names by word similarity (KNN: ORDER BY q <<-> name), which only GiST serves.
CREATE INDEX "DataProduct_name_trgm_gist_idx" ON "DataProduct" USING GIST (name gist_trgm_ops);
-- The ILIKE '%term%' search these served is gone.
DROP INDEX "DataProduct_name_trgm_idx";
DROP INDEX "DataProduct_description_trgm_idx";

-- Every sort the catalog offers, with the id tie-break it uses.
DROP INDEX "DataProduct_updatedAt_idx";
CREATE INDEX "DataProduct_updatedAt_id_idx" ON "DataProduct"("updatedAt" DESC, id);
CREATE INDEX "DataProduct_createdAt_id_idx" ON "DataProduct"("createdAt" DESC, id);
CREATE INDEX "DataProduct_name_id_idx" ON "DataProduct"(name, id);

-- Tag counts, maintained per statement from the transition tables: a bulk
-- insert of 100,000 products costs one aggregate, a single edit a handful of
-- row updates. `products` counts published products (APPROVED, PROVISIONING,
-- ACTIVE, DEPRECATED), `unpublished` drafts, reviews and rejections (what
-- governance also sees); retired products count nowhere.
CREATE TABLE "ProductTagCount" (
  tag         TEXT    NOT NULL PRIMARY KEY,
  products    INTEGER NOT NULL DEFAULT 0,
  unpublished INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX "ProductTagCount_products_tag_idx" ON "ProductTagCount"(products DESC, tag);

CREATE FUNCTION kappa_tag_class(status "ProductStatus") RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN status IN ('APPROVED', 'PROVISIONING', 'ACTIVE', 'DEPRECATED') THEN 1
              WHEN status IN ('DRAFT', 'IN_REVIEW', 'REJECTED') THEN 2 ELSE 0 END
$$;

-- Adds per-tag deltas, in tag order so concurrent edits cannot deadlock on the counters.
CREATE FUNCTION kappa_add_tag_counts(tags text[], published int[], unpublished int[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO "ProductTagCount" (tag, products, unpublished)
  SELECT d.tag, d.published, d.unpublished FROM unnest(tags, published, unpublished) AS d(tag, published, unpublished)
   WHERE d.published <> 0 OR d.unpublished <> 0 ORDER BY d.tag
  ON CONFLICT (tag) DO UPDATE SET products = "ProductTagCount".products + EXCLUDED.products,
                                  unpublished = "ProductTagCount".unpublished + EXCLUDED.unpublished
$$;

-- One function per event: a statement may only name the transition tables its trigger has.
CREATE FUNCTION kappa_product_tags_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t text[]; p int[]; u int[];
BEGIN
  SELECT array_agg(tag), array_agg(pub), array_agg(unpub) INTO t, p, u FROM (
    SELECT x.tag, count(DISTINCT r.id) FILTER (WHERE kappa_tag_class(r.status) = 1)::int AS pub,
                  count(DISTINCT r.id) FILTER (WHERE kappa_tag_class(r.status) = 2)::int AS unpub
      FROM new_rows r, unnest(r.tags) AS x(tag) GROUP BY x.tag) counted;
  IF t IS NOT NULL THEN PERFORM kappa_add_tag_counts(t, p, u); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION kappa_product_tags_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t text[]; p int[]; u int[];
BEGIN
  SELECT array_agg(tag), array_agg(-pub), array_agg(-unpub) INTO t, p, u FROM (
    SELECT x.tag, count(DISTINCT r.id) FILTER (WHERE kappa_tag_class(r.status) = 1)::int AS pub,
                  count(DISTINCT r.id) FILTER (WHERE kappa_tag_class(r.status) = 2)::int AS unpub
      FROM old_rows r, unnest(r.tags) AS x(tag) GROUP BY x.tag) counted;
  IF t IS NOT NULL THEN PERFORM kappa_add_tag_counts(t, p, u); END IF;
  RETURN NULL;
END $$;

CREATE FUNCTION kappa_product_tags_updated() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE t text[]; p int[]; u int[];
BEGIN
  -- Only rows whose tags or counted class changed contribute (a status move within "published" does not).
  SELECT array_agg(tag), array_agg(pub), array_agg(unpub) INTO t, p, u FROM (
    SELECT tag, coalesce(sum(d) FILTER (WHERE class = 1), 0)::int AS pub, coalesce(sum(d) FILTER (WHERE class = 2), 0)::int AS unpub FROM (
      SELECT DISTINCT n.id, x.tag, kappa_tag_class(n.status) AS class, 1 AS d
        FROM new_rows n JOIN old_rows o ON o.id = n.id, unnest(n.tags) AS x(tag)
       WHERE n.tags IS DISTINCT FROM o.tags OR kappa_tag_class(n.status) <> kappa_tag_class(o.status)
      UNION ALL
      SELECT DISTINCT o.id, x.tag, kappa_tag_class(o.status) AS class, -1 AS d
        FROM old_rows o JOIN new_rows n ON n.id = o.id, unnest(o.tags) AS x(tag)
       WHERE n.tags IS DISTINCT FROM o.tags OR kappa_tag_class(n.status) <> kappa_tag_class(o.status)
    ) changes GROUP BY tag) summed;
  IF t IS NOT NULL THEN PERFORM kappa_add_tag_counts(t, p, u); END IF;
  RETURN NULL;
END $$;

CREATE TRIGGER "DataProduct_tag_counts_insert" AFTER INSERT ON "DataProduct"
  REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kappa_product_tags_inserted();
CREATE TRIGGER "DataProduct_tag_counts_update" AFTER UPDATE ON "DataProduct"
  REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION kappa_product_tags_updated();
CREATE TRIGGER "DataProduct_tag_counts_delete" AFTER DELETE ON "DataProduct"
  REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION kappa_product_tags_deleted();

INSERT INTO "ProductTagCount" (tag, products, unpublished)
SELECT x.tag, count(DISTINCT p.id) FILTER (WHERE kappa_tag_class(p.status) = 1), count(DISTINCT p.id) FILTER (WHERE kappa_tag_class(p.status) = 2)
  FROM "DataProduct" p, unnest(p.tags) AS x(tag) GROUP BY x.tag;
