/** `npm run fetch -w packages/engines`: resolves the pinned engines into the cache (CI runs it once before the tests). */
import { ensureApacheFlink } from "./apache-flink/cluster.ts";
import { ensureApacheKafka } from "./apache-kafka/cluster.ts";
import { ensureSchemathesis } from "./schemathesis/install.ts";

const log = (line: string) => console.log(`[engines] ${line}`);
const libs = await ensureApacheKafka(log);
console.log(`[engines] Apache Kafka jars in ${libs}`);
const flink = await ensureApacheFlink(log);
console.log(`[engines] Apache Flink jars in ${flink.libDir} and ${flink.extraDir}`);
// schemathesis, the API property tester `npm test` runs against the portal (apps/portal e2e/api-fuzz.spec.ts):
// Python 3.10+ with venv (.ci/run installs python3-venv) and PyPI are needed once.
const schemathesis = await ensureSchemathesis(log);
console.log(`[engines] schemathesis in ${schemathesis}`);
