// End to end: a deployment rolled to another version and undeployed from its page, as a person does it, against
// the real backend (`e3 up`, a cluster no agent runs): a version that fits replaces the deployment; one that does
// not fit is rolled back with the reason, and the deployment runs on; undeploy asks first, naming what goes.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { kvApplication } from "./cluster.mjs";

let backend;
let browser;
let page;
recordFailures(() => page);
let first;

/** A new version of `shop` whose kvs has `shards` shards. */
async function saveVersion(shards) {
  const app = kvApplication("shop");
  app.spec.nodes[1].shards = shards;
  await backend.api("/api/v1/applications/shop", { method: "PUT", body: JSON.stringify(app) });
}

before(async () => {
  backend = await startBackend();
  browser = await launch();
  page = await newTestPage(browser);
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 3, server_type: "type1-smartnic", name: "rolls" }),
  });
  await backend.api("/api/v1/applications", { method: "POST", body: JSON.stringify(kvApplication("shop")) });
  const accepted = await backend.api("/api/v1/deployments", {
    method: "POST",
    body: JSON.stringify({ application: "shop", cluster: "rolls" }),
  });
  assert.equal((await backend.waitJob(accepted.job_id)).state, "succeeded");
  first = accepted.deployment_id;
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe("rolling and undeploying from the deployment's page", () => {
  test("a version that does not fit is rolled back with the reason; the deployment runs on", async () => {
    await saveVersion(400);
    await page.goto(`${backend.url}/#/deployments/${first}`);
    await page.locator(byId("roll-version")).selectOption("2");
    await page.locator(byId("roll-button")).click();
    const status = page.locator(byId("roll-status"));
    await status.filter({ hasText: /^Rolled back: / }).waitFor({ timeout: 60_000 });
    assert.match(await status.innerText(), /^Rolled back: kv \(kvs\) shard \d+ .*room/);
    assert.equal((await backend.api(`/api/v1/deployments/${first}`)).version, 1);
  });

  test("a version that fits replaces the deployment, and the page links to the new one", async () => {
    await saveVersion(2);
    await page.goto(`${backend.url}/#/deployments/${first}`);
    await page.reload(); // as a person arrives from the editor where they saved v3
    await page.locator(byId("roll-version")).selectOption("3");
    await page.locator(byId("roll-button")).click();
    await page.locator(byId("roll-status")).filter({ hasText: /^succeeded — rolled: / }).waitFor({ timeout: 60_000 });
    await screenshot(page, "rollout-done");
    await page.locator(byId("roll-new")).click();
    await page.locator(byId("deployment-facts")).filter({ hasText: "shop v3" }).waitFor();
    const listed = (await backend.api("/api/v1/deployments?application=shop")).items;
    assert.deepEqual(listed.map((d) => d.version), [3]);
  });

  test("undeploy asks first, naming what goes, and removes it", async () => {
    const [current] = (await backend.api("/api/v1/deployments?application=shop")).items;
    await page.goto(`${backend.url}/#/deployments/${current.id}`);
    await page.locator(byId("undeploy")).click();
    const what = await page.locator(`${byId("undeploy-dialog")} ${byId("confirm-what")}`).innerText();
    assert.match(what, new RegExp(`shop v3 from cluster rolls: its ${current.instances} instances`));
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("undeployed")).waitFor();
    assert.equal((await backend.api("/api/v1/deployments?application=shop")).total, 0);
    const audit = (await backend.api("/api/v1/audit?action=deployment.delete&limit=10")).items;
    assert.ok(audit.length >= 2, "the rollout's removal of v1 and this undeploy are both audited");
  });
});
