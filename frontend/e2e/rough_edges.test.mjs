// End to end: the rough edges of issue #18 (item 7), as the person who reported them checks them, against the real
// backend (`e3 up` with its local cluster of 3 real agents on loopback, so that a migration really runs):
//  - a failed job's error code reads unbroken on the Jobs page (and the Deployments page) in a narrow window;
//  - signed in, the home page says who and offers "Sign out", not the token form; signed out stays signed out
//    after a reload (the local-mode token is not taken again) until "Sign in as local admin" or a pasted token;
//  - one migration is one entry in the cluster page's event timeline, opening to its steps in protocol order,
//    with the agents' answers to its commands inside it, not beside it;
//  - the application chosen in the cluster toolbar is the timeline's, and the other way round.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { deployKv, waitFor } from "./cluster.mjs";

const APP = "e2e-kv";
const OTHER = "solo";
let backend;
let browser;
let page;
recordFailures(() => page);
let placed; // the e2e-kv instances as the API placed them
let failedJob; // the deployment job that found no room

before(async () => {
  backend = await startBackend({ localServers: 3 });
  browser = await launch();
  page = await newTestPage(browser);
  ({ placed } = await deployKv(backend, "local", APP));
  await backend.api("/api/v1/applications", {
    method: "POST",
    body: JSON.stringify({
      apiVersion: "e3/v1", kind: "Application", metadata: { name: OTHER },
      spec: { nodes: [{ id: "gw", service: "api_gateway", replicas: 0 }], edges: [] },
    }),
  });
  const solo = await backend.api("/api/v1/deployments", { method: "POST", body: JSON.stringify({ application: OTHER, cluster: "local" }) });
  assert.equal((await backend.waitJob(solo.job_id)).state, "succeeded");
  // 64 SQL shards on two servers without agents: no room, the job fails with insufficient_capacity.
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 2, server_type: "type1-smartnic", name: "small" }),
  });
  await backend.api("/api/v1/applications", {
    method: "POST",
    body: JSON.stringify({
      apiVersion: "e3/v1", kind: "Application", metadata: { name: "too-big" },
      spec: { nodes: [{ id: "db", service: "sql", shards: 64, replicas: 0 }], edges: [] },
    }),
  });
  const started = await backend.api("/api/v1/deployments", { method: "POST", body: JSON.stringify({ application: "too-big", cluster: "small" }) });
  failedJob = await backend.waitJob(started.job_id);
  assert.equal(failedJob.state, "failed");
  assert.equal(failedJob.error.code, "insufficient_capacity");
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** The code chip's text, how many line boxes it spans, its height and its font's size (px). */
function chipShape(locator) {
  return locator.evaluate((el) => ({
    text: el.textContent,
    lines: el.getClientRects().length,
    height: el.getBoundingClientRect().height,
    fontSize: parseFloat(getComputedStyle(el).fontSize),
  }));
}

describe("rough edges (issue #18, item 7)", () => {
  test("a failed job's error code is shown unbroken, on one line, in a narrow window", async () => {
    // 900 px: where the Message column used to break it as "insufficie / nt_capacit / y".
    const narrow = await browser.newPage({ viewport: { width: 900, height: 900 } });
    try {
      await narrow.goto(`${backend.url}/#/jobs`);
      const row = narrow.locator(byId(`row-jobs-${failedJob.id}`));
      await row.waitFor();
      const code = row.locator(byId("error-code")).filter({ hasText: "insufficient_capacity" });
      const shape = await chipShape(code);
      assert.equal(shape.text, "insufficient_capacity");
      assert.equal(shape.lines, 1, "the code spans more than one line");
      assert.ok(shape.height < shape.fontSize * 2, `the code is ${shape.height} px high: more than one line of ${shape.fontSize} px`);
      // the field path and the resource, codes too
      assert.deepEqual(await row.locator(byId("error-code")).allInnerTexts(), ["insufficient_capacity", "spec.nodes[0]", "cpu_cores", "cpu_cores"]);
      await screenshot(narrow, "rough-jobs-code", { fullPage: false });

      await narrow.goto(`${backend.url}/#/deployments`);
      const deployment = narrow.locator(byId(`row-deployments-${failedJob.deployment_id}`));
      await deployment.waitFor();
      const there = await chipShape(deployment.locator(byId("error-code")).first());
      assert.equal(there.text, "insufficient_capacity");
      assert.equal(there.lines, 1);
    } finally {
      await narrow.close();
    }
  });

  test("signed in: who and Sign out, no token form; signed out stays signed out after a reload; signs in again", async () => {
    const localAsks = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/v1/local-token")) localAsks.push(r.url());
    });
    await page.goto(`${backend.url}/#/`);
    await page.locator(byId("signed-in-as")).filter({ hasText: "local-admin" }).waitFor();
    const line = page.locator(byId("session-line"));
    await line.filter({ hasText: "Signed in as local-admin" }).waitFor();
    assert.equal(await page.locator(byId("token-input")).count(), 0, "the token form is shown while signed in");
    assert.ok(localAsks.length >= 1);

    await page.locator(byId("sign-out")).click();
    await line.filter({ hasText: "Signed out." }).waitFor();
    await page.locator(byId("token-input")).waitFor();
    assert.match(await page.locator(".shell-user").innerText(), /Not signed in/);
    await screenshot(page, "rough-signed-out", { fullPage: false });

    localAsks.length = 0;
    const health = page.waitForResponse((r) => r.url().endsWith("/healthz"));
    await page.reload();
    await health;
    await page.waitForTimeout(1500); // the local-mode token would have been asked for and checked by now
    assert.match(await line.innerText(), /Signed out\./);
    assert.equal(await page.locator(byId("signed-in-as")).count(), 0, "signed in again after the reload");
    assert.deepEqual(localAsks, [], "the local-mode token was asked for after a sign-out");

    await page.locator(byId("sign-in-local")).click();
    await page.locator(byId("signed-in-as")).filter({ hasText: "local-admin" }).waitFor();
    assert.equal(await page.locator(byId("token-input")).count(), 0);
    await page.reload();
    await page.locator(byId("signed-in-as")).filter({ hasText: "local-admin" }).waitFor();

    // Signed out again, then in with a pasted token, which a reload keeps.
    const { token } = await backend.api("/api/v1/tokens", { method: "POST", body: JSON.stringify({ name: "paster", scopes: ["read"] }) });
    await page.locator(byId("sign-out")).click();
    await page.locator(byId("token-input")).fill(token);
    await page.locator(byId("sign-in")).click();
    await page.locator(byId("signed-in-as")).filter({ hasText: "paster" }).waitFor();
    await page.reload();
    await page.locator(byId("signed-in-as")).filter({ hasText: "paster" }).waitFor();
    await page.locator(byId("sign-out")).click();
    await page.locator(byId("sign-in-local")).click();
    await page.locator(byId("signed-in-as")).filter({ hasText: "local-admin" }).waitFor();
    await page.locator(byId("home-template-iot-ts")).waitFor(); // the home page's lists, read with it
    await screenshot(page, "rough-signed-in", { fullPage: false });
  });

  test("one migration is one timeline entry, opening to its steps in protocol order with its commands' answers", { timeout: 120_000 }, async () => {
    await page.goto(`${backend.url}/#/clusters/local`);
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    await page.locator(byId("timeline-connection")).filter({ hasText: "live" }).waitFor();
    await page.locator(byId("timeline-kind-other")).check();
    const acks = page.locator(`${byId("timeline-entry")}[data-kind="command.ack"]`);
    await acks.first().waitFor(); // the deployments' own
    const acksBefore = await acks.count();

    // The kvs primary to the host of the server that holds neither copy, through the API.
    const { items } = await backend.api("/api/v1/clusters/local/nodes?limit=500");
    const taken = new Set([placed.kv.server, placed["kv-backup"].server]);
    const target = items.find((n) => n.kind === "host" && !taken.has(n.name.split("/")[0]));
    assert.ok(target, "no host free of the kvs shard");
    const answer = await backend.api(`/api/v1/instances/${placed.kv.id}/migrations`, {
      method: "POST", body: JSON.stringify({ target_node: target.name }),
    });
    await waitFor(async () => (await backend.api(`/api/v1/migrations/${answer.migration_id}`)).state === "succeeded",
                  "the migration to succeed", 60_000);

    const entry = page.locator(`${byId("timeline-entry")}[data-kind="migration"]`);
    await page.locator(`${byId("timeline-entry")}[data-kind="migration"][data-state="succeeded"]`).waitFor();
    assert.equal(await entry.count(), 1);
    assert.equal(await page.locator(`${byId("timeline-entry")}[data-kind^="migration."]`).count(), 0, "a migration event listed on its own");
    assert.equal(await acks.count(), acksBefore, "the migration's command answers listed on their own");
    assert.match(await entry.innerText(), new RegExp(`Migration of kv shard 0 primary succeeded \\(${placed.kv.node} → ${target.name}\\), 5 of 5 steps done`));

    await entry.locator(byId("timeline-expand")).click();
    const steps = entry.locator(byId("timeline-step"));
    const names = await steps.evaluateAll((els) => els.map((el) => el.getAttribute("data-step")));
    assert.deepEqual(names, ["requested", "started", "push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source", "end"]);
    for (const name of ["push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source"]) {
      assert.match(await entry.locator(`[data-step="${name}"]`).innerText(), new RegExp(`${name}: done in \\d+ ms`));
    }
    // every node of the cluster got the new routes and said so (an answer not needed for the step to end can
    // arrive a little after the migration succeeded: it joins the same line when it does)
    const routesLine = () => entry.locator('[data-step="update_routes"] .tl-answer').allInnerTexts();
    await waitFor(async () => {
      const lines = await routesLine();
      return lines.length === 1 && items.every((n) => lines[0].includes(n.name));
    }, "every node's set_routes answer in the update_routes step", 15_000);
    const routes = await routesLine();
    for (const n of items) assert.ok(routes[0].startsWith("✓ set_routes on") && routes[0].includes(n.name), `${n.name} in ${routes[0]}`);
    assert.match(await entry.locator('[data-step="push"]').innerText(), new RegExp(`✓ deploy_instance on ${target.name}`));
    await screenshot(page, "rough-migration-entry");

    // Read again from the backlog (a reload): still one entry.
    await page.reload();
    await page.locator(byId("timeline-connection")).filter({ hasText: "live" }).waitFor();
    await entry.waitFor();
    assert.equal(await entry.count(), 1);
  });

  test("the application chosen in the toolbar is the timeline's, and the other way round", async () => {
    const toolbar = page.locator(byId("app-filter"));
    const timeline = page.locator(byId("timeline-app"));
    const migration = page.locator(`${byId("timeline-entry")}[data-kind="migration"]`);
    await migration.waitFor();
    await toolbar.selectOption(OTHER);
    assert.equal(await timeline.inputValue(), OTHER);
    assert.equal(await migration.count(), 0); // the migration was e2e-kv's
    await screenshot(page, "rough-filter-synced");
    await timeline.selectOption(APP);
    assert.equal(await toolbar.inputValue(), APP);
    await migration.waitFor();
    const drawn = Number((await page.locator(byId("instance-count")).innerText()).replace(/[^0-9]/g, ""));
    assert.equal(drawn, 3); // gw, kv and its backup
    await timeline.selectOption("");
    assert.equal(await toolbar.inputValue(), "");
  });
});
