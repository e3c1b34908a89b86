// End to end against a running cluster of real agents: where network namespaces work (root: CI), `e3 up`'s
// emulated rack `rack` (3 type1-smartnic servers: an e3-agent per host, an e3-nic per SmartNIC) with the kvs on
// the SmartNICs; elsewhere its local cluster `local` (3 beefy servers, one e3-agent each on loopback:
// `--mode local`); E3_E2E_CLUSTER=rack|local chooses. api_gateway → kvs with one backup placed by HCM, and
// e3-loadgen sending writes through the gateway so that heartbeats carry requests.
// In Debian Chromium a person:
//  1. opens the dashboard and sees queue depths and joules per request, current and changing; the run prints
//     heartbeat → pixel latency (the heartbeat's ts to the DOM, and to the frame, that show it) and frame times;
//  2. drags the kvs primary onto the one server that can take it, confirms, sees the steps complete and the
//     instance drawn on its new node;
//  3. kills that node's program (SIGKILL: on the rack, the SmartNIC's e3-nic) and sees the node go down on the
//     dashboard and failover events in the cluster page's timeline.
// Timing figures are printed, never asserted (a noisy machine); behaviour is asserted. Screenshots go to
// frontend/test-results/ (live-*.png).
import assert from "node:assert/strict";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, fmtBusy, fmtProfile, frameTimes, launch, mainThreadBusy, measureUpdates, newTestPage, profileScript,
         recordFailures, resultsDir, screenshot } from "./browser.mjs";
import { canvasMarks, tooltipAt } from "./canvas.mjs";
import { KEY, deployKv, fmt, running, startLoad, stats, useRack, waitFor } from "./cluster.mjs";

const RACK = useRack();
const CLUSTER = RACK ? "rack" : "local";
const KV_KIND = RACK ? "smartnic" : "host"; // where the kvs runs, and where it is moved to
const NODES = RACK ? 6 : 3;
const APP = "e2e-kv";
const MEASURE_MS = 5_000;
const PAYLOAD = `${KEY} client-1\\nPUT k{seq} v`; // \n for e3-loadgen: the gateway's line, then the kvs's
const RATE = 1000; // requests/s, the steady load
const CLOSED = 64; // requests outstanding, the changed load

let backend;
let load;
let browser;
let dash; // the dashboard's page
let page; // the cluster page's
recordFailures(() => page);
let deploymentId;
let placed; // gw, kv, kv-backup as the API placed them
let target; // the node the kvs primary is moved to
let movedFrom; // and the one it was on

before(async () => {
  backend = await startBackend(RACK ? { rackServers: 3 } : { localServers: 3 });
  ({ deploymentId, placed } = await deployKv(backend, CLUSTER, APP, RACK ? { gw: "host", kv: "smartnic" } : {}));
  console.log(`placed: ${Object.entries(placed).map(([k, i]) => `${k} on ${i.node}`).join(", ")}`);
  load = startLoad(placed.gw, PAYLOAD, { rate: RATE });
  browser = await launch();
  dash = await newTestPage(browser);
  page = await newTestPage(browser);
});

after(async () => {
  load?.stop();
  await browser?.close();
  await backend?.stop();
});

const card = (name, freshness) => dash.locator(`${byId(`node-card-${name}`)}${freshness ? `[data-freshness="${freshness}"]` : ""}`);

async function nodeNames(kind) {
  const { items } = await backend.api(`/api/v1/clusters/${CLUSTER}/nodes?limit=500`);
  return items.filter((n) => !kind || n.kind === kind).map((n) => n.name);
}

/** The queue of every node and the application's J/request as shown, with whether each is current. */
async function readFigures(nodes) {
  const out = {};
  for (const name of nodes) {
    const q = card(name).locator(byId("node-queue"));
    out[`queue ${name}`] = { text: await q.innerText(), old: await q.getAttribute("data-old") };
  }
  const joules = dash.locator(`${byId(`app-row-${APP}`)} ${byId("app-joules")}`);
  out[`J/request ${APP}`] = { text: await joules.innerText(), old: await joules.getAttribute("data-old") };
  return out;
}

describe("a live cluster of real agents", () => {
  test("dashboard: queue depth and joules per request shown as current and changing; heartbeat → pixel; frames",
       { timeout: 90_000 }, async () => {
    const nodes = await nodeNames();
    assert.equal(nodes.length, NODES);
    await dash.goto(`${backend.url}/#/clusters/${CLUSTER}/dashboard`);
    for (const name of nodes) await card(name, "current").waitFor();
    await dash.locator(`${byId(`app-row-${APP}`)} ${byId("app-joules")}[data-old="false"]`).waitFor();
    // The gateway's writes reach the application's entry: a throughput and a J/request, not dashes.
    await waitFor(async () => /\d/.test(await dash.locator(`${byId(`app-row-${APP}`)} ${byId("app-joules")}`).innerText()),
                  "a joules-per-request figure");
    // The model beside it is the model at the load measured now, the knee apart as capacity, and the gap a ratio.
    const row = dash.locator(byId(`app-row-${APP}`));
    await waitFor(async () => /^model at [\d.,]+\/s: [\d.,]+ .*J/.test(await row.locator(byId("app-model-joules")).innerText()),
                  "the model's J/request at the measured load");
    assert.match(await row.locator(byId("app-capacity")).innerText(), /^capacity: [\d.,]+ .*req\/s/);
    assert.match(await row.locator(byId("app-joules-gap")).innerText(), /^[\d.]+× the model$/);
    // The application's graph: its two DAG nodes, the gateway's calls to the kvs carrying a measured rate.
    const edge = row.locator(`${byId("graph-edge")}[data-from="gw"][data-to="kv"]`);
    assert.deepEqual(await row.locator(byId("graph-node")).evaluateAll((gs) => gs.map((g) => g.dataset.dagNode)),
                     ["gw", "kv"]);
    const edgeRate = async () => Number((await edge.getAttribute("data-rate")) || "0");
    await waitFor(async () => (await edgeRate()) > 0, "a rate on the gw → kv edge");
    // A click on a DAG node lists its instances: where each runs, and its node's state; a second click closes it.
    const kvBox = row.locator(`${byId("graph-node")}[data-dag-node="kv"]`);
    await kvBox.click();
    const listed = await row.locator(`${byId("graph-details")} ${byId("graph-instance")}`).evaluateAll(
      (rows) => rows.map((r) => [...r.querySelectorAll("td")].map((td) => td.textContent)));
    assert.deepEqual(listed.map(([, role, node, , state]) => [role, node, state]),
                     [["primary", placed.kv.node, "up"], ["backup", placed["kv-backup"].node, "up"]]);
    // Its link opens the placement view with those instances listed (and highlighted), with their recent events.
    const href = await row.locator(byId("graph-placement-link")).getAttribute("href");
    await page.goto(`${backend.url}/${href}`);
    const focus = page.locator(byId("dag-focus"));
    await focus.waitFor({ timeout: 60_000 });
    const focusRows = focus.locator(byId("dag-focus-instance"));
    await waitFor(async () => (await focusRows.count()) === 2, "the kvs's two instances listed on the placement view");
    assert.match(await focus.innerText(), new RegExp(`DAG node kv · ${APP}`));
    assert.deepEqual(await focusRows.evaluateAll((rows) => rows.map((r) => r.querySelectorAll("td")[2].textContent)),
                     [placed.kv.node, placed["kv-backup"].node]);
    console.log(`the kvs's recent events on the placement view: ${await focus.locator("li").count()}`);
    await kvBox.click();
    await row.locator(byId("graph-details")).waitFor({ state: "detached" });

    // Heartbeat → pixel and frame times, measured in the page over MEASURE_MS while heartbeats stream in; and
    // how busy the page's main thread was meanwhile (Chromium's own task timings), which tells the page's own
    // work from frames lost to the other programs sharing the machine's cores.
    const busy = await mainThreadBusy(dash);
    const profile = process.env.PROFILE ? await profileScript(dash) : null; // PROFILE=1: where the script time goes
    const measured = await measureUpdates(dash, MEASURE_MS);
    const thread = await busy.end();
    if (profile) console.log(fmtProfile(await profile.end(join(resultsDir, "live-dashboard.cpuprofile"))));
    const deltas = frameTimes(measured);
    const frameStats = stats(deltas);
    console.log(`heartbeat → DOM (MutationObserver): ${fmt(stats(measured.toDom))}  (target p99 ≤ 250 ms)`);
    console.log(`heartbeat → frame that paints it: ${fmt(stats(measured.toFrame))}  (target p99 ≤ 250 ms)`);
    console.log(`frame time over ${MEASURE_MS / 1000} s while updating (3 servers): mean ${frameStats.mean.toFixed(1)} ms, ` +
                `p99 ${frameStats.p99.toFixed(1)} ms, worst ${frameStats.max.toFixed(1)} ms over ${frameStats.n} frames, ` +
                `${deltas.filter((d) => d > 20).length} over 20 ms  (target 60 fps: 16.7 ms)`);
    console.log(`the page's main thread meanwhile: busy ${fmtBusy(thread)}`);
    assert.ok(measured.toDom.length > 0, "no node card was updated while measuring");
    // The figures, a second apart, at the steady load and then with the load changed to a closed loop of
    // CLOSED requests always outstanding: every one current each time, and the queue or J/request changes.
    const samples = [];
    for (let i = 0; i < 3; i++) {
      samples.push(await readFigures(nodes));
      await dash.waitForTimeout(1_000);
    }
    const steadyRate = await edgeRate();
    load.stop();
    load = startLoad(placed.gw, PAYLOAD, { connections: CLOSED });
    const changedAt = Date.now();
    // The graph's edge follows the load's change (printed: the issue's 2 s is a figure, not an assertion, here).
    const followed = await waitFor(async () => Math.abs((await edgeRate()) - steadyRate) > 0.2 * steadyRate,
                                   "the gw → kv edge's rate following the change of load", 15_000, 100);
    console.log(`gw → kv edge: ${steadyRate} req/s steady, ${await edgeRate()} req/s with ${CLOSED} outstanding, ` +
                `followed ${((Date.now() - changedAt) / 1000).toFixed(1)} s after the load changed (target 2 s)`);
    assert.ok(followed);
    const steady = samples.length;
    const differs = (s) => Object.keys(s).some((k) => !samples.slice(0, steady).some((b) => b[k].text === s[k].text));
    for (let i = 0; i < 10; i++) {
      await dash.waitForTimeout(1_000);
      samples.push(await readFigures(nodes));
      if (i >= 2 && differs(samples.at(-1))) break;
    }
    load.stop();
    load = startLoad(placed.gw, PAYLOAD, { rate: RATE });
    for (const s of samples) {
      for (const [what, f] of Object.entries(s)) assert.equal(f.old, "false", `${what} shown as not current: ${f.text}`);
    }
    for (const k of Object.keys(samples[0])) {
      console.log(`${k}: ${samples.slice(0, steady).map((s) => s[k].text).join(" → ")} | with ${CLOSED} outstanding: ` +
                  `${samples.slice(steady).map((s) => s[k].text).join(" → ")}`);
    }
    const changed = Object.keys(samples[0]).filter((k) => new Set(samples.map((s) => s[k].text)).size > 1);
    assert.ok(changed.length > 0, "no queue depth or J/request figure changed over the samples");
    assert.ok(differs(samples.at(-1)), "the figures did not follow the load's change");
    await screenshot(dash, "live-dashboard");

    // A reload shows the last minutes at once: the server's stored 1 s steps go before the live samples, so the
    // sparklines hold samples from before the page was loaded, which no live message can give.
    const reloadedAt = Date.now();
    await dash.reload();
    const oldest = async (locator) => Number((await locator.getAttribute("data-since")) || "NaN");
    const sparks = {
      "the application's throughput": dash.locator(`${byId(`app-row-${APP}`)} svg.dash-spark[aria-label^="throughput"]`),
      [`node ${nodes[0]}'s queue`]: card(nodes[0]).locator("svg.dash-spark").first(),
    };
    for (const [what, spark] of Object.entries(sparks)) {
      const since = await waitFor(async () => {
        const t = await oldest(spark);
        return t < reloadedAt - 10_000 ? t : null;
      }, `${what}'s sparkline holding samples from before the reload`, 15_000);
      console.log(`after the reload, ${what}'s sparkline starts ${((reloadedAt - since) / 1000).toFixed(0)} s ` +
                  `before it (the server's stored steps)`);
    }

    // The cluster's power as a chart, opened from its sparkline: a time axis, a value axis in W, the source named in
    // the legend, a read-out under the pointer with a time and watts, another range read from the server; Esc closes.
    await dash.getByRole("button", { name: `chart of total power, cluster ${CLUSTER}` }).click();
    const chartPanel = dash.locator(byId("chart-panel"));
    await chartPanel.waitFor();
    const chart = chartPanel.locator(byId("figure-chart"));
    const points = async () => Number((await chart.getAttribute("data-points")) || "0");
    await waitFor(async () => (await points()) > 0, "points on the power chart", 15_000);
    const xTicks = await chartPanel.locator(byId("chart-x-tick")).evaluateAll((ts) => ts.map((t) => t.textContent));
    assert.ok(xTicks.length >= 3, `x axis ticks: ${xTicks.join(", ")}`);
    assert.match(await chartPanel.locator(byId("chart-y-unit")).textContent(), /^k?W$/);
    const legend = await chartPanel.locator(byId("chart-legend-measured")).innerText();
    assert.match(legend, /sources?: (RAPL|IPMI|IPMI-SPLIT|MODEL|MIXED)/, legend);
    // The newest data is at the plot's right end (the time axis' line spans the plot): a young cluster has only
    // its last minute or so, a few pixels of the hour. Leftwards from the end until the read-out gives watts.
    const axis = await chartPanel.locator(`${byId("chart-x-axis")} line`).boundingBox();
    const readout = chartPanel.locator(byId("chart-readout"));
    const hovered = await waitFor(async () => {
      for (let dx = 1; dx <= 60; dx += 3) {
        await dash.mouse.move(axis.x + axis.width - dx, axis.y - 20);
        const text = await readout.innerText();
        if (/^\d\d:\d\d:\d\d · [\d.,]+ k?W$/.test(text)) return text;
      }
      return null;
    }, "a read-out with a time and watts under the pointer", 10_000);
    console.log(`power chart (last 1 h): x axis ${xTicks.join(" ")}; legend "${legend}"; read-out "${hovered}"`);
    await screenshot(dash, "live-dashboard-chart", { fullPage: false });
    await chartPanel.getByRole("button", { name: "15 min" }).click();
    await waitFor(async () => (await chartPanel.locator("h2").innerText()).includes("last 15 min"), "the 15 min range");
    const status = chartPanel.locator(byId("chart-status"));
    await waitFor(async () => (await status.innerText()) === "" && (await points()) > 0,
                  "the power chart over 15 min read from the server", 15_000);
    console.log(`power chart (last 15 min): ${await points()} points`);
    await dash.keyboard.press("Escape");
    await chartPanel.waitFor({ state: "detached" });
  });

  /** Every instance mark one may drag, with its tooltip's text. */
  /** The instance marks' tooltips: those one may drag ("move"), or in a replay, where dragging is off, "pointer". */
  async function markTexts(on = page, cursor = "move") {
    const marks = [];
    for (const at of await canvasMarks(on, cursor)) {
      const point = { x: at.x + 1, y: at.y + 1 };
      marks.push({ at: point, text: await tooltipAt(on, point) });
    }
    return marks;
  }

  /** The mark of `dagNode`'s primary (its tooltip names the DAG node and "primary") among `marks`. */
  const primaryOf = (marks, dagNode) =>
    marks.find((m) => m.text.includes(`${dagNode} (`) && /\bprimary\b/.test(m.text)) ?? null;

  async function findPrimary(dagNode, on = page, cursor = "move") {
    return primaryOf(await markTexts(on, cursor), dagNode);
  }

  /** A point well inside node `name`'s box: the middle of the stretch of the column through `from` (else of the
   * row, else of a coarse grid) where the tooltip names it (a tooltip a render late shifts the ends, not the middle). */
  async function findNode(name, from) {
    const box = await page.locator(byId("cluster-canvas")).boundingBox();
    const column = [];
    for (let y = box.y + 2; y < box.y + box.height; y += 4) column.push({ x: from.x, y });
    const row = [];
    for (let x = box.x + 2; x < box.x + box.width; x += 4) row.push({ x, y: from.y });
    const grid = [];
    for (let y = box.y + 10; y < box.y + box.height; y += 16) {
      for (let x = box.x + 10; x < box.x + box.width; x += 16) grid.push({ x, y });
    }
    for (const line of [column, row, grid]) {
      const hits = [];
      for (const at of line) {
        await page.mouse.move(at.x, at.y);
        const title = await page.evaluate(() => document.querySelector(".cluster-tooltip .t-title")?.textContent ?? "");
        if (title.startsWith(`${name} (`)) hits.push(at);
        else if (hits.length >= 3) break;
      }
      if (hits.length >= 3) return hits[Math.floor(hits.length / 2)];
    }
    return null;
  }

  test("migration: drag the kvs primary onto another server's node of its kind, confirm, the steps complete, drawn on its new node",
       { timeout: 120_000 }, async () => {
    movedFrom = placed.kv.node;
    const taken = new Set([placed.kv.server, placed["kv-backup"].server]);
    const candidates = await nodeNames(KV_KIND);
    target = candidates.find((n) => !taken.has(n.split("/")[0]));
    assert.ok(target, `no server free of the kvs shard among ${candidates}`);

    await page.goto(`${backend.url}/#/clusters/${CLUSTER}`);
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    await page.locator(byId("app-filter")).selectOption(APP);
    const kv = await findPrimary("kv");
    assert.ok(kv, "the kvs primary's mark was not found on the canvas");
    assert.match(kv.text, new RegExp(`${placed.kv.node.replace("/", "\\/")} \\(${KV_KIND}\\)`));
    const drop = await findNode(target, kv.at);
    assert.ok(drop, `${target} was not found on the canvas`);

    await page.mouse.move(kv.at.x, kv.at.y);
    await page.mouse.down();
    await page.mouse.move(drop.x, drop.y, { steps: 12 });
    assert.equal(await page.locator(byId("cluster-canvas")).evaluate((c) => c.style.cursor), "copy", "no drop target under the pointer");
    await screenshot(page, "live-migrate-drag");
    await page.mouse.up();
    await page.locator(`${byId("migration-prediction")}, ${byId("migration-refused")}`).waitFor();
    if (await page.locator(byId("migration-refused")).count()) {
      assert.fail(`dry run refused: ${await page.locator(byId("migration-refused")).innerText()}`);
    }
    assert.match(await page.locator(byId("migration-panel")).innerText(), new RegExp(target.replace("/", "\\/")));
    await screenshot(page, "live-migrate-prediction");

    const confirmed = Date.now();
    await page.locator(byId("migration-confirm")).click();
    const outcome = page.locator(byId("migration-outcome"));
    await outcome.waitFor({ timeout: 60_000 });
    const text = await outcome.innerText();
    assert.match(text, /^Done: steps took \d+ ms/, text);
    const steps = await page.locator(".migrate-steps li").allInnerTexts();
    console.log(`migration ${placed.kv.node} → ${target}: confirm → done shown ${Date.now() - confirmed} ms; ` +
                `steps: ${steps.map((s) => s.replace(/\s+/g, " ").trim()).join(" · ")}`);
    for (const name of ["push", "open_transfer", "stop_and_transfer", "update_routes", "cleanup_source"]) {
      assert.match(await page.locator(`${byId(`step-${name}`)}`).getAttribute("class"), /step-done/, name);
    }

    // The API places it there, and the drawing has it on its new node.
    const now = await waitFor(() => running(backend, deploymentId), "the instances running after the move");
    assert.equal(now.kv.node, target);
    assert.equal(now.kv.id, placed.kv.id);
    placed = now;
    await page.locator(byId("migration-panel")).getByRole("button", { name: "Close" }).click();
    let seen = [];
    const since = Date.now();
    let refitted = false;
    const moved = await waitFor(async () => {
      seen = await markTexts();
      const found = primaryOf(seen, "kv");
      if (!found && !refitted && Date.now() - since > 15_000) {
        // Once in CI the drawing was left shrunk to a dot after the move (every mark under one pixel): what a
        // person does then is press Fit. Still a defect of the view to find (docs/status.md).
        refitted = true;
        await page.getByRole("button", { name: "Fit", exact: true }).click();
      }
      return found?.text.includes(`${target} (${KV_KIND})`) ? found : null;
    }, `the kvs primary drawn on ${target}`, 45_000, 500).catch(async (error) => {
      await screenshot(page, "live-migrate-not-drawn");
      const marks = seen.map((m) => `(${m.at.x},${m.at.y}) ${m.text.replace(/\s+/g, " ") || "no tooltip"}`);
      throw new Error(`${error.message}; the marks last seen: ${marks.join(" | ") || "none"}`);
    });
    await page.mouse.click(moved.at.x, moved.at.y);
    const details = page.locator(byId("instance-details"));
    await details.waitFor();
    assert.match(await details.innerText(), new RegExp(`Node\\s+${target.replace("/", "\\/")} \\(${KV_KIND}\\)`));
    await screenshot(page, "live-migrate-done");
  });

  test("replay: just before the migration the kvs primary is on its old node; a link with the moment shows the same; " +
       "compared with now, the move is listed", { timeout: 120_000 }, async () => {
    assert.ok(movedFrom && target, "the migration test did not move the kvs primary");
    const bar = page.locator(byId("replay-bar"));
    const showsOldNode = async (on) => {
      await on.locator(`${byId("replay-bar")}[data-loading="false"]`).waitFor({ timeout: 30_000 });
      return waitFor(async () => {
        const kv = await findPrimary("kv", on, "pointer");
        return kv?.text.includes(`${movedFrom} (${KV_KIND})`) ? kv : null;
      }, `the kvs primary drawn on ${movedFrom} at the replayed moment`, 30_000, 500);
    };
    // The slider marks the migration's start (with the node events beside it, one mark); the list of changes
    // shows the cluster just before it.
    await page.locator(`${byId("replay-mark")}[data-kinds~="migration.started"]`).last().waitFor({ timeout: 30_000 });
    const changes = page.locator(byId("replay-changes"));
    const started = await changes.locator('option[data-kind="migration.started"]').first().getAttribute("value");
    await changes.selectOption(started);
    await page.locator(byId("replay-moment")).waitFor();
    const at = await bar.getAttribute("data-at");
    assert.match(page.url(), /\?at=\d{4}-\d{2}-\d{2}T/, "the URL holds the moment");
    await showsOldNode(page);
    await screenshot(page, "live-replay-before-move");

    // The link opens the same picture in another tab.
    const other = await newTestPage(browser);
    try {
      await other.goto(page.url());
      await other.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
      assert.equal(await other.locator(byId("replay-bar")).getAttribute("data-at"), at);
      await showsOldNode(other);
    } finally {
      await other.close();
    }

    // Compared with now: the move is listed, from its old node to its new.
    await page.locator(byId("replay-compare")).click();
    const moved = page.locator(`${byId("moment-diff")} ${byId("diff-moved")}`);
    await moved.waitFor({ timeout: 30_000 });
    const text = await moved.innerText();
    assert.match(text, new RegExp(`kv shard 0 primary: ${movedFrom.replace("/", "\\/")} → ${target.replace("/", "\\/")}`), text);
    assert.match(await page.locator(byId("diff-figures")).innerText(), new RegExp(APP));
    await screenshot(page, "live-replay-diff");
    await page.locator(byId("replay-bar")).getByRole("button", { name: "Stop comparing" }).click();
    await moved.waitFor({ state: "detached" });
    await page.locator(byId("replay-back-live")).click();
    await page.locator(byId("replay-live")).waitFor();
    assert.doesNotMatch(page.url(), /[?&](at|compare)=/, "live again: the URL holds no moment");
  });

  test("failover: kill -9 the agent of the kvs primary's node; the node goes down, failover in the timeline",
       { timeout: 90_000 }, async () => {
    assert.ok(target, "the migration did not run");
    const victim = backend.clusterAgents().find((a) => a.node === target);
    assert.ok(victim, `no agent runs ${target}`);
    await page.locator(byId("timeline-connection")).filter({ hasText: "live" }).waitFor();
    const failovers = page.locator(`${byId("timeline-entry")}[data-kind^="failover."]`);
    assert.equal(await failovers.count(), 0);

    const killed = Date.now();
    process.kill(victim.pid, "SIGKILL");
    await card(target, "old").waitFor({ timeout: 10_000 });
    const staleMs = Date.now() - killed;
    await card(target).locator(byId("node-state")).filter({ hasText: /^down$/ }).waitFor({ timeout: 20_000 });
    const downMs = Date.now() - killed;
    await failovers.first().waitFor({ timeout: 30_000 });
    const failoverMs = Date.now() - killed;
    try {
      await page.locator(`${byId("timeline-entry")}[data-kind="failover.done"]`).waitFor({ timeout: 30_000 });
    } catch (error) {
      // Say which side lost it: the failover itself (the API has no failover.done) or the live timeline.
      const shown = await failovers.evaluateAll((els) => els.map((e) => `${e.getAttribute("data-kind")}`));
      const { items } = await backend.api(`/api/v1/events?kind=failover.&last=50`);
      assert.fail(`no failover.done in the timeline 30 s after the kill: shown [${shown.join(", ")}], ` +
                  `the API's failover events [${items.map((e) => `${e.id} ${e.kind}`).join(", ")}]; ${error.message}`);
    }
    const doneMs = Date.now() - killed;
    console.log(`kill -9 of ${target}'s agent → its card stale ${staleMs} ms, shown down ${downMs} ms, ` +
                `first failover event in the timeline ${failoverMs} ms, failover.done ${doneMs} ms`);
    await screenshot(dash, "live-failover-dashboard");
    const kinds = await failovers.evaluateAll((els) => els.map((e) => e.getAttribute("data-kind")));
    console.log(`failover events shown: ${kinds.reverse().join(", ")}`);
    assert.ok(kinds.includes("failover.promoted"), kinds.join(", "));
    assert.equal(await page.locator(`${byId("timeline-entry")}[data-kind="node.down"]`).count() > 0, true);
    await screenshot(page, "live-failover-timeline");

    // The backup took over, and the API says the node is down.
    const { items } = await backend.api(`/api/v1/clusters/${CLUSTER}/nodes?limit=500`);
    assert.equal(items.find((n) => n.name === target).state, "down");
    const after = await waitFor(async () => {
      const { items: inst } = await backend.api(`/api/v1/deployments/${deploymentId}/placement?limit=500`);
      return inst.find((i) => i.dag_node === "kv" && i.role === "primary" && i.node !== target);
    }, "the kvs primary on another node");
    assert.equal(after.node, placed["kv-backup"].node);

    // The timeline is filtered by the application (chosen before the drag). Once the layout has caught up with the
    // failover, the failed node holds none of its instances: its node.down and failover events still show, by the
    // applications they name (they vanished here as the layout caught up, once in CI). A reload reads the layout
    // afresh (the filter is chosen again: it is the page's state).
    await page.reload();
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    await page.locator(byId("app-filter")).selectOption(APP);
    for (const kind of ["node.down", "failover.started", "failover.done"]) {
      const entry = page.locator(`${byId("timeline-entry")}[data-kind="${kind}"]`);
      await entry.first().waitFor({ timeout: 15_000 }).catch(() => assert.fail(`${kind} not in the timeline filtered by ${APP}`));
      assert.equal(await entry.count(), 1, kind);
    }
  });
});
