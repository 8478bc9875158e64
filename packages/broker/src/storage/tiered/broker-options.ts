/**
 * Broker settings → tiered-storage options for LogManager.open: the folder
 * store at remote.log.storage.dir (default `<log.dirs>-remote`) when
 * remote.log.storage.system.enable is on, nothing otherwise.
 */
import { join, resolve } from "node:path";
import type { BrokerConfig } from "../../config.ts";
import type { RemoteLogManagerOptions } from "./remote-log-manager.ts";
import { FolderRemoteStorage } from "./remote-storage.ts";

export async function remoteLogOptions(config: BrokerConfig): Promise<RemoteLogManagerOptions | undefined> {
  if (!config["remote.log.storage.system.enable"]) return undefined;
  const dir = resolve(config["remote.log.storage.dir"] ?? defaultRemoteDir(config["log.dirs"]));
  return {
    storage: await FolderRemoteStorage.open(dir),
    taskIntervalMs: config["remote.log.manager.task.interval.ms"],
    cacheBytes: config["remote.log.reader.cache.bytes"],
  };
}

/** Default remote folder for a data dir: a sibling named `<dir>-remote` (`.data/kafka` → `.data/kafka-remote`). */
export function defaultRemoteDir(dataDir: string): string {
  const trimmed = dataDir.replace(/[\\/]+$/, "");
  return join(trimmed, "..", `${trimmed.slice(Math.max(trimmed.lastIndexOf("/"), trimmed.lastIndexOf("\\")) + 1)}-remote`);
}
