import { expect } from "@playwright/test";
import { withDb } from "./db";
import { test } from "./fixtures";
import { as } from "./roles";

/*
 * Operating the mesh in the browser: the cluster topic browser, claiming an
 * unmanaged topic (prefilled form, normal review, the reviewer's ACL
 * decision) and the lineage page. This project runs without the worker, so the
 * test writes what the worker's cluster scan would (marked below); the real
 * scan and adoption against the broker are packages/worker/test/{cluster-scan,claim}.integration.test.ts.
 */
const run = Date.now().toString(36);
const topic = `legacy.clicks-${run}`;
/** A payments consumer account whose principal already reads the topic: the review adopts it as a subscription. */
const adopter = `payments-clicks-${run}`;

const acl = (principal: string, patternType: "LITERAL" | "PREFIXED", resourceName: string) => ({ resourceType: "TOPIC", resourceName, patternType, principal, host: "*", operation: "READ", permission: "ALLOW" });

test.beforeAll(async () => {
  // Standing in for the worker's cluster scan: an unmanaged topic with data, overrides, grants and a consumer group.
  await withDb((db) =>
    db.query(
      `INSERT INTO "ClusterTopic" (name, "productId", partitions, configs, "endOffset", "earliestOffset", "sizeBytes", acls, groups, "observedAt")
       VALUES ($1, NULL, 2, $2::jsonb, 1200, 200, 65536, $3::jsonb, $4::jsonb, now())`,
      [
        topic,
        JSON.stringify({ "retention.ms": "604800000", "cleanup.policy": "delete" }),
        JSON.stringify([acl("User:old-report", "LITERAL", topic), acl("User:bi-team", "PREFIXED", "legacy."), acl(`User:${adopter}`, "LITERAL", topic)]),
        JSON.stringify([{ groupId: "bi-dashboard", state: "Stable", members: 1, committedPartitions: 2 }]),
      ],
    ),
  );
});

test("an owner claims an unmanaged topic; the reviewer adopts one grant as a subscription, keeps one as an exception and removes one; lineage shows the graph", async ({ browser }) => {
  const owner = await as(browser, "ordersOwner");
  await owner.goto("/");
  await owner.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Cluster" }).click();
  const row = owner.locator(`[data-testid="cluster-topic"][data-topic="${topic}"]`);
  await expect(row).toContainText("unmanaged");
  await expect(row.getByTestId("topic-records")).toHaveText("1000");
  await row.getByText("Configs, consumer groups and ACLs").click();
  await expect(row).toContainText("retention.ms=604800000");
  await expect(row).toContainText("bi-dashboard");
  await expect(row.getByTestId("topic-acls")).toContainText("User:old-report");

  await row.getByRole("link", { name: `Claim ${topic} as data product` }).click();
  await expect(owner.getByRole("heading", { level: 1 })).toContainText(topic);
  await expect(owner.getByLabel("Partitions")).toHaveValue("2");
  await owner.getByLabel("Description").fill("Every page click from the legacy tracker, now a governed product.");
  // Sampling a topic's records is not every owner's (issue 30, finding 5): the claim form does not offer it, and says why.
  await expect(owner.getByTestId("schema-inference")).toHaveCount(0);
  await expect(owner.getByTestId("schema-inference-refused")).toContainText("Only platform admins infer a schema from a topic's records");
  expect((await owner.request.post("/api/v1/cluster/topics/schema-inference", { data: { topic } })).status()).toBe(403);
  const placeholder = JSON.stringify({ type: "record", name: "Click", fields: [{ name: "url", type: "string" }] }, null, 2);
  await owner.getByRole("radio", { name: "Avro" }).check();
  await owner.getByLabel("Definition").fill(placeholder);
  await owner.getByRole("button", { name: "Claim topic" }).click();
  await owner.waitForURL((url) => /^\/products\/[a-z0-9]+$/.test(url.pathname));
  const productId = new URL(owner.url()).pathname.split("/").pop() ?? "";
  await expect(owner.getByText(topic, { exact: true }).first()).toBeVisible();
  await owner.goto(`/products/${productId}/edit`);
  await expect(owner.getByTestId("schema-inference-refused")).toContainText("needs a platform admin's approval for this claim");

  // A platform admin allows the claim's owners to sample the topic.
  const admin = await as(browser, "admin");
  await admin.goto(`/cluster/claim?topic=${encodeURIComponent(topic)}`);
  const sampling = admin.getByTestId("claim-sampling");
  await expect(sampling).toContainText("The Orders domain has an open claim on this topic.");
  await sampling.getByRole("button", { name: "Allow the claim's owners to sample" }).click();
  await expect(sampling).toContainText("Its owners may infer the schema from sample records (approved");

  // "Infer from sample records" on the claim's edit page: the worker reads the topic; here the test stands in for it (marked) and the form shows what came back.
  await owner.reload();
  const inference = owner.getByTestId("schema-inference");
  const answerAsWorker = (data: { inferred: boolean; format: string | null; definition: string | null; explanation: string }) =>
    withDb((db) =>
      db.query(
        `UPDATE "TopicSchemaInference" SET status = 'DONE', sampled = 40, inferred = $2, format = $3::"SchemaFormat", definition = $4, explanation = $5, "finishedAt" = now() WHERE topic = $1 AND status = 'PENDING'`,
        [topic, data.inferred, data.format, data.definition, data.explanation],
      ),
    );
  await inference.getByRole("button", { name: "Infer from sample records" }).click();
  await expect(inference).toContainText("Waiting for the worker to read sample records");
  await answerAsWorker({ inferred: false, format: null, definition: null, explanation: "40 of 40 sampled values are not JSON and carry no schema id; paste it." });
  await expect(inference.getByRole("alert")).toContainText("No schema could be inferred. 40 of 40 sampled values are not JSON");
  await expect(owner.getByLabel("Definition")).toHaveValue(placeholder);
  await inference.getByRole("button", { name: "Infer from sample records" }).click();
  await expect(inference).toContainText("Waiting for the worker");
  const clickSchema = JSON.stringify({ type: "record", name: "Click", fields: [{ name: "page", type: "string" }] }, null, 2);
  await answerAsWorker({ inferred: true, format: "AVRO", definition: clickSchema, explanation: "40 of 40 sampled records carry registry schema id 7 (Avro); this is that schema." });
  await expect(inference).toContainText("Schema prefilled below: Avro from 40 sampled records.");
  await expect(owner.getByLabel("Definition")).toHaveValue(clickSchema);
  await expect(owner.getByRole("radio", { name: "Avro" })).toBeChecked();
  await owner.getByRole("button", { name: "Save changes" }).click();
  await owner.waitForURL((url) => url.pathname === `/products/${productId}`);
  await owner.getByRole("button", { name: "Submit for review" }).click();
  await expect(owner.getByTestId("product-status")).toHaveText("IN REVIEW");

  // The consumer account the review will name, created by its domain's owner.
  const payments = await as(browser, "paymentsOwner");
  const me = (await (await payments.request.get("/api/v1/me")).json()) as { memberships: { domainId: string; domainSlug: string }[] };
  expect((await payments.request.post("/api/v1/service-accounts", { data: { domainId: me.memberships.find((m) => m.domainSlug === "payments")?.domainId, name: adopter } })).status()).toBe(201);

  const reviewer = await as(browser, "reviewer");
  await reviewer.goto(`/products/${productId}`);
  const acls = reviewer.getByTestId("claim-acls");
  await expect(acls).toContainText("User:old-report");
  await expect(acls.getByTestId("claim-acl").filter({ hasText: "User:bi-team" })).toContainText("Not decided yet.");
  // A prefixed grant covers other topics too: it can only be kept as an exception.
  await expect(reviewer.getByLabel("Decision for User:bi-team READ").locator('option[value="REMOVE"]')).toBeDisabled();
  await expect(reviewer.getByLabel("Decision for User:bi-team READ").locator('option[value="ADOPT"]')).toBeDisabled();
  // Approving before every ACL is decided is refused, saying why.
  await reviewer.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByText("Decide each of the 3 ACLs found on").first()).toBeVisible();
  await reviewer.getByLabel("Decision for User:bi-team READ").selectOption("EXCEPTION");
  await reviewer.getByLabel("Reason for User:bi-team READ").fill("BI reads every legacy topic through one prefix grant until Q2.");
  await reviewer.getByLabel("Decision for User:old-report READ").selectOption("REMOVE");
  await reviewer.getByRole("button", { name: "Save ACL decisions" }).click();
  await expect(reviewer.getByText("Decide every ACL found on the topic: 2 of 3 decided.").first()).toBeVisible();
  await reviewer.getByLabel(`Decision for User:${adopter} READ`).selectOption("ADOPT");
  await reviewer.getByLabel(`Service account for User:${adopter} READ`).fill(adopter);
  await reviewer.getByRole("button", { name: "Save ACL decisions" }).click();
  await expect(acls.getByTestId("claim-acl").filter({ hasText: "User:old-report" }).getByTestId("claim-acl-decision")).toContainText("remove: the worker deletes it on approval");
  await expect(acls.getByTestId("claim-acl").filter({ hasText: "User:bi-team" }).getByTestId("claim-acl-decision")).toContainText("keep as an exception: BI reads every legacy topic through one prefix grant until Q2.");
  await expect(acls.getByTestId("claim-acl").filter({ hasText: `User:${adopter}` }).getByTestId("claim-acl-decision")).toContainText(`keep as a subscription of ${adopter} (payments), granted on approval`);
  // The full review page lists the same decisions.
  await reviewer.goto(`/review/products/${productId}`);
  await expect(reviewer.getByTestId("claim-acls").getByTestId("claim-acl-decision")).toHaveCount(3);
  await expect(reviewer.getByTestId("claim-acls")).toContainText(`keep as a subscription of ${adopter} (payments)`);
  await reviewer.goto(`/products/${productId}`);
  await reviewer.getByRole("button", { name: "Approve", exact: true }).click();
  await expect(reviewer.getByTestId("product-status")).toHaveText("APPROVED");
  const steps = reviewer.getByTestId("provisioning-steps").getByRole("listitem");
  await expect(steps.last()).toContainText("Remove the claimed topic's ACLs the reviewer did not keep");
  // The adopted grant is now a subscription of the named account, approved and waiting for the worker's grant.
  const adopted = await withDb(async (db) => (await db.query<{ status: string }>(`SELECT s.status FROM "Subscription" s JOIN "ServiceAccount" a ON a.id = s."serviceAccountId" WHERE s."productId" = $1 AND a.name = $2`, [productId, adopter])).rows);
  expect(adopted).toEqual([{ status: "APPROVED" }]);

  await reviewer.goto(`/lineage?product=${productId}`);
  await expect(reviewer.getByTestId("lineage-graph")).toBeVisible();
  await expect(reviewer.getByTestId("lineage-graph").getByText(/^Clicks/)).toBeVisible();
  const api = await reviewer.request.get(`/api/v1/lineage?productId=${productId}`);
  expect(api.status()).toBe(200);
  expect((await api.json()).nodes).toEqual(expect.arrayContaining([expect.objectContaining({ kind: "product", productId })]));
  const topics = await (await owner.request.get(`/api/v1/cluster/topics?managed=false&q=${encodeURIComponent(topic)}`)).json();
  expect(topics.items[0]).toMatchObject({ name: topic, managed: false, productId: null });
});
