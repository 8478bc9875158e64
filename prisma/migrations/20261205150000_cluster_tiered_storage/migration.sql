-- Whether a cluster's brokers offer tiered storage (remote.log.storage.system.enable), as the worker last read it; NULL = not known yet.
ALTER TABLE "Cluster" ADD COLUMN "tieredStorage" BOOLEAN;
