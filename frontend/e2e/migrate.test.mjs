// End to end: migrating from the placement view, against the real backend (`e3 up`, no agents). With
// no agent on the cluster the API predicts a move (dry run) but refuses to carry it out (no_agent):
// the person drags an instance onto another node, reads the predicted change, confirms, and sees the
// API's reason next to the instance, which stays where it was. Also: a read-only token cannot drag,
// and the event timeline streams the cluster's events.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { canvasMarks, findMark, tooltipAt } from "./canvas.mjs";

let backend;
let browser;
let page;
recordFailures(() => page);
let mark; // a point on an instance mark, in page pixels
let drawn; // the instance count shown

before(async () => {
  backend = await startBackend();
  browser = await launch();
  page = await newTestPage(browser);
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 3, server_type: "type1-smartnic", name: "mig" }),
  });
  await backend.api("/api/v1/templates/iot-ts/instantiate", { method: "POST", body: "{}" });
  // A small application without backups, which can move to any other server's host.
  await backend.api("/api/v1/applications", {
    method: "POST",
    body: JSON.stringify({
      apiVersion: "e3/v1",
      kind: "Application",
      metadata: { name: "mini" },
      spec: {
        nodes: [
          { id: "gw", service: "api_gateway", shards: 1, replicas: 0, constraints: { platform: "host" } },
          { id: "ids", service: "nids", shards: 1, replicas: 0, constraints: { platform: "host" } },
        ],
        edges: [{ from: "gw", to: "ids" }],
      },
    }),
  });
  for (const application of ["iot-ts", "mini"]) {
    const started = await backend.api("/api/v1/deployments", {
      method: "POST",
      body: JSON.stringify({ application, cluster: "mig", anti_affinity: false }),
    });
    assert.equal((await backend.waitJob(started.job_id)).state, "succeeded");
  }
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

async function openCluster() {
  await page.goto(`${backend.url}/#/clusters/mig`);
  await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
}

describe("migrations from the placement view", () => {
  /** Drags the instance at `at` in steps of each (dx, dy) in turn until the canvas shows a drop target, and drops it there. */
  async function dragToTarget(at, directions, name) {
    await page.mouse.move(at.x, at.y);
    await page.mouse.down();
    let found = false;
    for (const [dx, dy] of directions) {
      for (let i = 1; i < 90 && !found; i++) {
        await page.mouse.move(at.x + dx * i, at.y + dy * i);
        found = (await page.locator(byId("cluster-canvas")).evaluate((c) => c.style.cursor)) === "copy";
      }
    }
    assert.ok(found, "no drop target found");
    await screenshot(page, name);
    await page.mouse.up();
    await page.locator(`${byId("migration-prediction")}, ${byId("migration-refused")}`).waitFor();
  }

  test("a move the API refuses shows its reason on the dragged instance and leaves the view as it was", async () => {
    await openCluster();
    assert.ok(await findMark(page, "move"), "no draggable instance found on the canvas");
    // The api gateway's first primary, onto the SmartNIC to the right, whose cores HCM has filled.
    await page.locator(byId("app-filter")).selectOption("iot-ts");
    drawn = await page.locator(byId("instance-count")).innerText();
    mark = await findMark(page, "move");
    await dragToTarget(mark, [[10, 0]], "migrate-drag");
    const note = page.locator(byId("refusal-note"));
    await note.waitFor();
    assert.match(await note.innerText(), /has no room for/);
    assert.match(await page.locator(byId("migration-refused")).innerText(), /insufficient_capacity/);
    await screenshot(page, "migrate-refused-capacity");
    assert.equal(await page.locator(byId("instance-count")).innerText(), drawn);
    await page.mouse.move(mark.x, mark.y);
    assert.equal(await page.locator(byId("cluster-canvas")).evaluate((c) => c.style.cursor), "move");
  });

  test("drag onto a host with room: predicted change, confirm, and the API's refusal (no agent) next to it", async () => {
    await page.locator(byId("refusal-note")).getByRole("button", { name: "Dismiss" }).click();
    assert.equal(await page.locator(byId("migration-panel")).count(), 0);
    // mini's gateway, down (or up) the column of hosts onto another server's host.
    await page.locator(byId("app-filter")).selectOption("mini");
    drawn = await page.locator(byId("instance-count")).innerText();
    const gw = await findMark(page, "move");
    await dragToTarget(gw, [[0, 10], [0, -10]], "migrate-drag-host");
    if (await page.locator(byId("migration-refused")).count()) {
      assert.fail(`dry run refused: ${await page.locator(byId("migration-refused")).innerText()}`);
    }
    assert.match(await page.locator(byId("prediction-joules_per_request")).innerText(), /Joules per request \(model\)/);
    assert.match(await page.locator(byId("migration-panel")).innerText(), /Cost model's prediction/);
    await screenshot(page, "migrate-prediction");

    await page.locator(byId("migration-confirm")).click();
    const note = page.locator(byId("refusal-note"));
    await note.waitFor();
    assert.match(await note.innerText(), /no agent runs/);
    assert.match(await page.locator(byId("migration-refused")).innerText(), /no_agent/);
    await screenshot(page, "migrate-refused-no-agent");
    assert.equal(await page.locator(byId("instance-count")).innerText(), drawn);
    assert.equal((await backend.api("/api/v1/migrations?cluster=mig")).total, 0);
    assert.match(await page.locator(".migrate-history").innerText(), /No migration on this cluster yet/);
  });

  test("confirmed: the steps complete one by one with their times, then the placement is fetched again", async () => {
    // The API's side played by the test (no agent could carry a move out here): accepted, then four polls.
    const id = "7e57c0de-0000-4000-8000-000000000001";
    const step = (name, state, ms) => ({ name, state, ms, started_at: null, finished_at: null, commands: [], detail: null });
    const names = ["push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source"];
    let polls = 0;
    let layouts = 0;
    await page.route(/\/api\/v1\/instances\/[^/]+\/migrations$/, async (route) => {
      const body = JSON.parse(route.request().postData());
      if (body.dry_run) return route.fallback();
      await route.fulfill({ status: 202, contentType: "application/json",
                            body: JSON.stringify({ ...(await (await route.fetch({ postData: JSON.stringify({ ...body, dry_run: true }) })).json()),
                                                   dry_run: false, migration_id: id, status_url: `/api/v1/migrations/${id}` }) });
    });
    await page.route(`**/api/v1/migrations/${id}`, (route) => {
      const done = Math.min(names.length, polls++);
      const steps = names.slice(0, done).map((n, i) => step(n, "done", 100 + i * 10));
      if (done < names.length) steps.push(step(names[done], "running", null));
      const state = done === names.length ? "succeeded" : "running";
      route.fulfill({ contentType: "application/json", body: JSON.stringify({
        id, instance_id: "x", source_node: "r0000-s00/host", source_node_id: id, target_node: "r0000-s01/host", target_node_id: id,
        kind: "move", source_instance_id: null, reason: "manual", state, step: names[Math.min(done, 4)], steps, stateful: true,
        error: null, prediction: null, requested_by: "local-admin", created_at: new Date().toISOString(),
        updated_at: new Date().toISOString(), finished_at: state === "succeeded" ? new Date().toISOString() : null }) });
    });
    page.on("request", (r) => { if (r.url().endsWith("/clusters/mig/layout")) layouts++; });

    await page.locator(byId("refusal-note")).getByRole("button", { name: "Dismiss" }).click();
    await page.locator(byId("app-filter")).selectOption("mini");
    const gw = await findMark(page, "move");
    await dragToTarget(gw, [[0, 10], [0, -10]], "migrate-drag-host-2");
    await page.locator(byId("migration-confirm")).click();
    await page.locator(byId("migration-steps")).waitFor();
    await page.locator(`${byId("step-stop_and_transfer")}.step-done`).waitFor();
    await page.locator(byId("migration-outcome")).waitFor();
    assert.match(await page.locator(byId("migration-outcome")).innerText(), /Done: steps took 600 ms/);
    assert.match(await page.locator(byId("step-cleanup_source")).innerText(), /140 ms/);
    await screenshot(page, "migrate-steps-done");
    assert.ok(layouts >= 1, "the placement was not fetched again");
    await page.unrouteAll();
    await page.locator(byId("migration-panel")).getByRole("button", { name: "Close" }).click();
  });

  test("the event timeline streams the cluster's events", async () => {
    await page.locator(byId("timeline-connection")).filter({ hasText: "live" }).waitFor();
    // The application chosen in the toolbar above is the timeline's too: every application again.
    assert.equal(await page.locator(byId("timeline-app")).inputValue(), "mini");
    await page.locator(byId("timeline-app")).selectOption("");
    const placed = page.locator(`${byId("timeline-entry")}[data-kind="deployment.placed"]`);
    await page.locator(byId("timeline-kind-other")).check();
    await placed.first().waitFor();
    assert.equal(await placed.count(), 2);
    await page.locator(byId("timeline-app")).selectOption("mini");
    assert.equal(await placed.count(), 1);
    await page.locator(byId("timeline-app")).selectOption("");
    await page.locator(byId("timeline-kind-other")).uncheck();
    assert.equal(await page.locator(`${byId("timeline-entry")}[data-kind="deployment.placed"]`).count(), 0);
  });

  test("live colours: with no agent reporting, every node is greyed out, no figure shown as current", async () => {
    await page.locator(byId("color-mode")).selectOption("live");
    const legend = page.locator(byId("live-legend"));
    await legend.waitFor();
    assert.match(await legend.innerText(), /0 of 6 nodes reporting current figures/);
    // An instance where it is drawn now (the page has scrolled since the first test found `mark`).
    const at = await findMark(page, "move");
    assert.ok(at, "no instance found on the canvas");
    await page.mouse.move(at.x, at.y);
    const tip = page.locator(".cluster-tooltip");
    await tip.waitFor();
    assert.match(await tip.innerText(), /live figures not current \(never reported\)/);
    await screenshot(page, "live-colours-stale");
    await page.locator(byId("color-mode")).selectOption("application");
  });

  test("live colours: instances by their node's queue, edges by traffic, a node gone quiet greyed out", async () => {
    // The live channel played by the test (no agents here): every node reports, s01/nic0's queue stands,
    // and s02/host stops reporting.
    const layout = await backend.api("/api/v1/clusters/mig/layout");
    const queues = { "r0000-s00/host": 2, "r0000-s00/nic0": 12, "r0000-s01/host": 5, "r0000-s01/nic0": 60, "r0000-s02/nic0": 30 };
    const snapshotNodes = (seq) =>
      layout.nodes.map((n, i) => {
        const quiet = n.name === "r0000-s02/host";
        return {
          id: n.id, name: n.name, kind: n.kind, server: layout.servers[n.server].name, rack: "r0000", state: "up",
          state_since: null, ts: quiet ? null : new Date().toISOString(), age_ms: quiet ? null : 30, stale: quiet,
          queue_len: quiet ? null : (queues[n.name] ?? 0), cpu_util: 0.4, power: { watts: 50, source: "model" },
          instances: layout.instances.id
            .map((id, k) => ({ id, k }))
            .filter(({ k }) => layout.instances.node[k] === i)
            .map(({ id, k }) => ({ id, requests_per_s: 500 + ((k * 37 + seq) % 400), exec_us: 40, exec_ema_us: 38, cpu_share: 0.1 })),
        };
      });
    const totals = { nodes: 6, nodes_reporting: 5, nodes_stale: 1, complete: false,
                     power: { watts: 300, source: "model", sources: ["model"] }, throughput_rps: 1000, requests_per_joule: 3 };
    await page.routeWebSocket(/\/live$/, (ws) => {
      let seq = 0;
      const send = (type) => ws.send(JSON.stringify({ type, seq: ++seq, server_time: new Date().toISOString(), stale_after_ms: 500,
        nodes: snapshotNodes(seq), applications: [], totals, ...(type === "snapshot" ? { cluster: { id: "c", name: "mig" }, instances: [] } : {}) }));
      send("snapshot");
      const timer = setInterval(() => send("update"), 200);
      timer.unref(); // the socket's close is not reported when the page reloads: never keep the run alive
      ws.onClose(() => clearInterval(timer));
    });
    await page.reload();
    await openCluster();
    await page.locator(byId("color-mode")).selectOption("live");
    await page.locator(byId("app-filter")).selectOption("");
    const legend = page.locator(byId("live-legend"));
    await legend.filter({ hasText: "5 of 6 nodes reporting" }).waitFor();
    assert.match(await legend.innerText(), /req\/s/);
    // an instance on r0000-s00/host (queue 2), whichever mark it is with every application drawn
    let tip = "";
    for (const at of await canvasMarks(page)) {
      tip = await tooltipAt(page, at);
      if (tip.includes("r0000-s00/host")) break;
    }
    assert.match(tip, /node queue 2 packets/);
    assert.match(tip, /\d+ req\/s · exec 40 µs/);
    await screenshot(page, "live-colours");
    await page.unrouteAll();
  });

  test("a read-only token cannot drag, and the tooltip says why", async () => {
    const { token } = await backend.api("/api/v1/tokens", { method: "POST", body: JSON.stringify({ name: "viewer", scopes: ["read"] }) });
    await page.evaluate((t) => localStorage.setItem("e3.token", t), token);
    await page.reload();
    await openCluster();
    const at = await findMark(page, "pointer");
    assert.ok(at, "no instance found on the canvas");
    assert.equal(await findMark(page, "move"), null);
    await page.mouse.move(at.x, at.y);
    const tip = page.locator(".cluster-tooltip");
    await tip.waitFor();
    assert.match(await tip.innerText(), /read-only token: moving an instance needs the deploy scope/);
    await page.mouse.down();
    await page.mouse.move(at.x + 120, at.y, { steps: 6 });
    await page.mouse.up();
    assert.equal(await page.locator(byId("migration-panel")).count(), 0);
    await screenshot(page, "migrate-read-only");
    await page.evaluate(() => localStorage.removeItem("e3.token"));
  });
});
