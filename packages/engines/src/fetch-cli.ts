/** `npm run fetch -w packages/engines`: resolves the pinned engines into the cache (CI runs it once before the tests). */
import { ensureApacheFlink } from "./apache-flink/cluster.ts";
import { ensureApacheKafka } from "./apache-kafka/cluster.ts";

const log = (line: string) => console.log(`[engines] ${line}`);
const libs = await ensureApacheKafka(log);
console.log(`[engines] Apache Kafka jars in ${libs}`);
const flink = await ensureApacheFlink(log);
console.log(`[engines] Apache Flink jars in ${flink.libDir} and ${flink.extraDir}`);
// schemathesis (the API property tester) is not fetched here: only `npm run test:api-fuzz -w apps/portal`
// needs it, not `npm test`, and it installs itself into the engines cache on first use.
