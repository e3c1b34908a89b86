// End to end: a deployment's status tells the truth, against the real backend with real agents (`e3 up`'s local
// cluster `local`: 2 beefy servers, one e3-agent each on loopback). An application whose knn has points of two
// dimensions (the API checks each value's format, not that; its agent refuses it: bad_config) beside a kvs that runs is deployed from the Deploy page; a person
// sees it end "Degraded" with the agent's reason, never "succeeded" or "Running", then finds the same truth in
// the Deployments list, on the placement view (the refused instance drawn apart, its reason in the tooltip and
// the details) and on the deployment's page (the refused instance and its reason, the agent's refusal among its
// events). A good application ends "Running". Screenshots go to frontend/test-results/ (status-*.png).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { canvasMarks, tooltipAt } from "./canvas.mjs";
import { kvApplication } from "./cluster.mjs";

const CLUSTER = "local";
const BAD = "e2e-unconfigured";
const GOOD = "e2e-kv";

let backend;
let browser;
let page;
recordFailures(() => page);
let badDeployment; // its id, as the deploy page links it

before(async () => {
  backend = await startBackend({ localServers: 2 });
  browser = await launch();
  page = await newTestPage(browser);
  // The knn's points have two dimensions: only its agent finds that (bad_config). The kvs and its backup run.
  await backend.api("/api/v1/applications", {
    method: "POST",
    body: JSON.stringify({
      apiVersion: "e3/v1",
      kind: "Application",
      metadata: { name: BAD },
      spec: {
        nodes: [
          { id: "gw", service: "knn", replicas: 0, config: { points: "0,0:low|1:high" } },
          { id: "kv", service: "kvs", replicas: 1 },
        ],
        edges: [{ from: "gw", to: "kv" }],
      },
    }),
  });
  await backend.api("/api/v1/applications", { method: "POST", body: JSON.stringify(kvApplication(GOOD)) });
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** Deploys `app` on the local cluster from its Deploy page; resolves to the deployment's status block once the
 * agents have answered (no longer placing or deploying), and the deployment's id. */
async function deployFromPage(app) {
  await page.goto(`${backend.url}/#/deploy/${app}`);
  await page.locator(`${byId("cluster-select")} option[value="${CLUSTER}"]`).waitFor({ state: "attached" });
  await page.locator(byId("cluster-select")).selectOption(CLUSTER);
  await page.locator(byId("deploy-button")).click();
  await page.locator(byId("job-state")).filter({ hasText: /^(placed|failed)$/ }).waitFor({ timeout: 90_000 });
  assert.equal(await page.locator(byId("job-state")).innerText(), "placed");
  const status = page.locator(`${byId("deployment-status")}:not([data-status="placing"]):not([data-status="deploying"])`);
  await status.waitFor({ timeout: 60_000 });
  const href = await page.locator(byId("view-deployment")).getAttribute("href");
  return { status, id: decodeURIComponent(href.replace(/^#\/deployments\//, "")) };
}

describe("deployment status", () => {
  test("a deployment its agents partly refuse ends Degraded with their reason, never succeeded or Running", async () => {
    const { status, id } = await deployFromPage(BAD);
    badDeployment = id;
    assert.equal(await status.getAttribute("data-status"), "degraded");
    assert.match(await status.getAttribute("class"), /status-warn/); // amber, not green
    const line = await page.locator(byId("deployment-status-text")).innerText();
    assert.match(line, /^Degraded: 1 of 3 instances refused by their agents: bad_config: .*knn: point 1 has 1 coordinates/);
    const refusals = page.locator(`${byId("deployment-refusals")} li`);
    assert.equal(await refusals.count(), 1);
    assert.match(await refusals.first().innerText(), /^bad_config: .+ \(1 instance\)$/);
    const panel = await page.locator(byId("job-panel")).innerText();
    assert.doesNotMatch(panel, /succeeded|Running/);
    await screenshot(page, "status-deploy-degraded");
  });

  test("the Deployments list shows it degraded, with the reason", async () => {
    await page.goto(`${backend.url}/#/deployments`);
    const row = page.locator(byId(`row-deployments-${badDeployment}`));
    await row.waitFor();
    const badge = row.locator(byId("status-badge"));
    assert.equal(await badge.getAttribute("data-status"), "degraded");
    assert.equal(await badge.innerText(), "Degraded");
    assert.match(await badge.getAttribute("title"), /refused by their agents: bad_config/);
    assert.match(await row.locator(byId("status-reason")).innerText(), /1 of 3 instances refused by their agents: bad_config/);
    await screenshot(page, "status-deployments-list");
    // Its id leads to its page.
    await row.locator(byId("deployment-link")).click();
    await page.waitForURL(new RegExp(`#/deployments/${badDeployment}$`));
  });

  test("the deployment's page lists the refused instance with its reason, and the agent's refusal among its events", async () => {
    await page.goto(`${backend.url}/#/deployments/${badDeployment}`);
    await page.locator(byId("deployment-status")).waitFor();
    if ((await page.locator(byId("deployment-status")).getAttribute("data-status")) !== "degraded") {
      await page.locator(byId("deployment-event")).first().waitFor();
      await screenshot(page, "status-deployment-page-unexpected");
      assert.fail(`not degraded: ${await page.locator(".deployment-page").innerText()}`);
    }
    assert.match(await page.locator(byId("deployment-facts")).innerText(), new RegExp(`${BAD} v1[\\s\\S]*${CLUSTER}[\\s\\S]*HCM`));
    const rows = page.locator(`${byId("list-instances")} tbody tr`);
    await rows.nth(2).waitFor();
    assert.equal(await rows.count(), 3);
    const refused = rows.filter({ has: page.locator(`${byId("instance-state")}[data-state="failed"]`) });
    assert.equal(await refused.count(), 1);
    const cells = await refused.locator("td").allInnerTexts();
    assert.equal(cells[0], "gw");
    assert.match(await refused.locator(byId("instance-reason")).innerText(), /^bad_config: .*knn: point 1 has 1 coordinates/);
    assert.equal(await rows.filter({ has: page.locator(`${byId("instance-state")}[data-state="running"]`) }).count(), 2);
    // Only the refused ones.
    await page.locator(byId("instances-filter")).selectOption("failed");
    await page.locator(".pager-range").filter({ hasText: "1–1 of 1" }).waitFor();
    assert.equal(await rows.count(), 1);
    assert.equal(await rows.locator(`${byId("instance-state")}[data-state="failed"]`).count(), 1);
    // Its events: placed, and the gateway's agent refusing it.
    const nack = page.locator(`${byId("deployment-event")}[data-kind="command.nack"]`);
    await nack.first().waitFor();
    assert.match(await nack.first().innerText(), /refused deploy instance of gw shard 0 primary: bad_config/);
    assert.equal(await page.locator(`${byId("deployment-event")}[data-kind="deployment.placed"]`).count(), 1);
    assert.match(await page.locator(byId("figure-throughput")).innerText(), /req\/s/); // the model's prediction
    await screenshot(page, "status-deployment-page");
  });

  test("the placement view draws the refused instance apart, its reason in the tooltip and the details", async () => {
    await page.goto(`${backend.url}/#/clusters/${CLUSTER}`);
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    assert.match(await page.locator(byId("legend-state-failed")).innerText(), /refused by its agent \(1\)/);
    assert.match(await page.locator(byId("legend-state-running")).innerText(), /running \(2\)/);
    // Each instance's tooltip once (a mark drawn large is found at several points).
    let refused = null;
    const tips = new Set();
    for (const at of await canvasMarks(page, "move")) {
      const tip = await tooltipAt(page, at);
      const title = tip.split("\n").slice(0, 2).join(" ");
      if (tips.has(title)) continue;
      tips.add(title);
      if (/refused by its agent/.test(tip)) refused = { at, tip };
      else assert.match(tip, /running: its agent ACKed it/);
    }
    assert.equal(tips.size, 3, `instances found: ${[...tips].join(" | ")}`);
    assert.ok(refused, `no refused instance in the tooltips: ${[...tips].join(" | ")}`);
    assert.match(refused.tip, /^e2e-unconfigured · gw \(knn\)/);
    assert.match(refused.tip, /failed: refused by its agent: bad_config: .*knn: point 1 has 1 coordinates/);
    await screenshot(page, "status-placement-tooltip");
    await page.mouse.click(refused.at.x, refused.at.y);
    const details = page.locator(byId("instance-details"));
    await details.waitFor();
    assert.equal(await details.locator(`${byId("instance-state")}[data-state="failed"]`).count(), 1);
    assert.match(await details.locator(byId("instance-refusal")).innerText(), /^bad_config: .*knn: point 1 has 1 coordinates/);
    // The cluster's event timeline shows the agent's refusal (a Refusals entry, shown by default).
    const nack = page.locator(`${byId("timeline-entry")}[data-kind="command.nack"]`);
    await nack.first().waitFor();
    assert.match(await nack.first().innerText(), /refused deploy instance of gw shard 0 primary: bad_config/);
    await screenshot(page, "status-placement-details");
  });

  test("a good application ends Running", async () => {
    const { status, id } = await deployFromPage(GOOD);
    assert.equal(await status.getAttribute("data-status"), "running");
    assert.match(await status.getAttribute("class"), /status-ok/);
    assert.equal(await page.locator(byId("deployment-status-text")).innerText(), "Running — all 3 instances running");
    assert.equal(await page.locator(byId("deployment-refusals")).count(), 0);
    await screenshot(page, "status-deploy-running");
    await page.goto(`${backend.url}/#/deployments`);
    const badge = page.locator(`${byId(`row-deployments-${id}`)} ${byId("status-badge")}`);
    await badge.waitFor();
    assert.equal(await badge.getAttribute("data-status"), "running");
  });
});
