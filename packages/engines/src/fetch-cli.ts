/** `npm run fetch -w packages/engines`: resolves the pinned engines into the cache (CI runs it once before the tests). */
import { ensureApacheKafka } from "./apache-kafka/cluster.ts";
import { ensureSchemathesis } from "./schemathesis/install.ts";

const libs = await ensureApacheKafka((line) => console.log(`[engines] ${line}`));
console.log(`[engines] Apache Kafka jars in ${libs}`);
// The API property tester runs only in `npm run test:api-fuzz -w apps/portal` (not in `npm test` yet):
// without Python or PyPI, say so and go on.
try {
  const schemathesis = await ensureSchemathesis((line) => console.log(`[engines] ${line}`));
  console.log(`[engines] schemathesis in ${schemathesis}`);
} catch (error) {
  console.warn(`[engines] schemathesis not installed (npm run test:api-fuzz -w apps/portal needs it): ${error instanceof Error ? error.message : String(error)}`);
}
