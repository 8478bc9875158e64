/** `npm run fetch -w packages/engines`: resolves the pinned engines into the cache (CI runs it once before the tests). */
import { ensureApacheKafka } from "./apache-kafka/cluster.ts";
import { ensureSchemathesis } from "./schemathesis/install.ts";

const libs = await ensureApacheKafka((line) => console.log(`[engines] ${line}`));
console.log(`[engines] Apache Kafka jars in ${libs}`);
const schemathesis = await ensureSchemathesis((line) => console.log(`[engines] ${line}`));
console.log(`[engines] schemathesis in ${schemathesis}`);
