-- Migration rules of a new major version (issue 29): JSONata DOWNGRADE (new
-- shape -> the predecessor's) and optional UPGRADE, reviewed with the version
-- and served by the Schema Registry API. A column of an existing table: the
-- apps' table grants cover it.
ALTER TABLE "DataProduct" ADD COLUMN "migrationRules" JSONB;
