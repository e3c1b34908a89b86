// End to end, issue #18: the what-if table says what each algorithm optimises and what its result claims (in
// words, never a bare true/false), shows an algorithm's proposed placement on the cluster before deploying,
// and starts on a cluster run by agents; the cluster view's Fit fills the canvas, and the live-updates banner
// lies over the drawing without moving it.
// `e3 up` with its local cluster `local` (2 servers, an e3-agent each) beside an agentless fattree cluster
// "aaa" that sorts first.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";

const APP = "whatif";
const ALGORITHMS = ["hcm", "annealing", "ilp", "first_fit"];
const OPTIMALITY = [
  "optimal for its own objective (not for joules or latency)",
  "stopped at its time cap or solved an approximation: the best placement found so far",
  "a heuristic: no claim of optimality",
];

let backend;
let browser;
let page;
recordFailures(() => page);

before(async () => {
  backend = await startBackend({ localServers: 2 });
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 3, server_type: "type1-smartnic", name: "aaa" }),
  });
  await backend.api("/api/v1/applications", {
    method: "POST",
    body: JSON.stringify({
      apiVersion: "e3/v1", kind: "Application", metadata: { name: APP },
      spec: {
        nodes: [{ id: "api_gateway", service: "api_gateway", shards: 1, replicas: 1 }, { id: "kvs", service: "kvs", shards: 2, replicas: 1 }],
        edges: [{ from: "api_gateway", to: "kvs" }],
      },
    }),
  });
  browser = await launch();
  page = await newTestPage(browser);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** The drawing's box on the canvas ("x0 y0 x1 y1", canvas CSS pixels) and the canvas's own size. */
async function drawingOn(testId) {
  const canvas = page.locator(byId(testId));
  await canvas.locator("xpath=.").and(page.locator(`${byId(testId)}[data-drawing]`)).waitFor();
  const [x0, y0, x1, y1] = (await canvas.getAttribute("data-drawing")).split(" ").map(Number);
  const box = await canvas.boundingBox();
  return { x0, y0, x1, y1, w: x1 - x0, h: y1 - y0, canvas: box };
}

function assertFills(d, what) {
  // Fit leaves a 16 px margin; the drawing fills the canvas's width or its height, and lies inside it.
  const fillsW = d.w >= 0.9 * (d.canvas.width - 32);
  const fillsH = d.h >= 0.9 * (d.canvas.height - 32);
  assert.ok(fillsW || fillsH, `${what}: the drawing (${d.w.toFixed(0)} × ${d.h.toFixed(0)}) does not fill the canvas (${d.canvas.width.toFixed(0)} × ${d.canvas.height.toFixed(0)})`);
  assert.ok(d.x0 >= -1 && d.y0 >= -1 && d.x1 <= d.canvas.width + 1 && d.y1 <= d.canvas.height + 1, `${what}: the drawing spills out of the canvas`);
}

describe("what-if preview and the cluster view (#18)", () => {
  test("the deploy page starts on the cluster run by agents, not the alphabetically first", async () => {
    await page.goto(`${backend.url}/#/deploy/${APP}`);
    const select = page.locator(byId("cluster-select"));
    await page.locator(`${byId("cluster-select")} option[value="aaa"]`).waitFor({ state: "attached" });
    await page.waitForFunction(() => document.querySelector('[data-testid="cluster-select"]')?.value === "local");
    assert.equal(await select.inputValue(), "local");
    assert.match(await page.locator(`${byId("cluster-select")} option[value="local"]`).innerText(), /2 nodes run by agents/);
    assert.match(await page.locator(`${byId("cluster-select")} option[value="aaa"]`).innerText(), /no agents/);
  });

  test("the table says what each algorithm optimises and what its result claims, in words", async () => {
    await page.locator(byId("cluster-select")).selectOption("aaa");
    await page.locator(byId("preview-button")).click();
    for (const a of ALGORITHMS) await page.locator(byId(`preview-row-${a}`)).waitFor({ timeout: 90_000 });
    for (const a of ALGORITHMS) {
      const objective = await page.locator(byId(`preview-${a}-objective`)).innerText();
      assert.match(objective, /^Optimises: \S.{10,}/, `${a}: ${objective}`);
      assert.ok(await page.locator(byId(`preview-${a}-objective`)).isVisible(), `${a}: objective not visible`);
      const optimality = (await page.locator(byId(`preview-${a}-optimality`)).innerText()).replace(/^Result: /, "");
      assert.ok(OPTIMALITY.includes(optimality), `${a}: ${optimality}`);
      const header = await page.locator(`${byId(`preview-row-${a}`)} th`).innerText();
      assert.doesNotMatch(header, /\b(true|false)\b/, `${a}: ${header}`);
    }
    assert.match(await page.locator(byId("preview-ilp-objective")).innerText(), /interference/);
    assert.match(await page.locator(byId("preview-first_fit-objective")).innerText(), /none: the first node/);
    assert.equal(await page.locator(byId("preview-table")).getByText(/optimal: (true|false)/).count(), 0);
    await screenshot(page, "whatif-table");
  });

  test("Show placement draws the algorithm's proposed instances on the cluster, not deployed", async () => {
    await page.locator(byId("preview-hcm-show")).click();
    const shown = page.locator(`${byId("proposed-placement")}[data-algorithm="hcm"]`);
    await shown.waitFor();
    assert.match(await shown.locator("h4").innerText(), /^6 instances proposed by HCM \(not deployed\) on aaa$/);
    const d = await drawingOn("proposed-canvas");
    assertFills(d, "proposed placement");
    // Per node, in words: every proposed instance once, on nodes of "aaa".
    const items = await page.locator(`${byId("proposed-nodes")} li`).allInnerTexts();
    const listed = items.flatMap((t) => t.split(" → ")[1].split(", "));
    assert.equal(listed.length, 6, items.join("\n"));
    for (const t of items) assert.match(t, /^r\d+-s\d+\/(host|nic\d) → /);
    assert.deepEqual(listed.filter((t) => t.startsWith("kvs shard")).sort(),
                     ["kvs shard 0", "kvs shard 0 backup 1", "kvs shard 1", "kvs shard 1 backup 1"]);
    await screenshot(page, "whatif-show-placement");
    // Another algorithm's instead; then hidden. Nothing was deployed.
    await page.locator(byId("preview-first_fit-show")).click();
    await page.locator(`${byId("proposed-placement")}[data-algorithm="first_fit"]`).waitFor();
    assert.equal(await page.locator(byId("preview-first_fit-show")).getAttribute("aria-pressed"), "true");
    await page.locator(byId("proposed-close")).click();
    await page.locator(byId("proposed-placement")).waitFor({ state: "detached" });
    assert.equal((await backend.api("/api/v1/deployments")).total, 0);
  });

  test("Fit fills the cluster canvas, after zooming away too", async () => {
    const accepted = await backend.api("/api/v1/deployments", {
      method: "POST", body: JSON.stringify({ application: APP, cluster: "aaa", algorithm: "hcm" }),
    });
    assert.equal((await backend.waitJob(accepted.job_id)).state, "succeeded");
    await page.goto(`${backend.url}/#/clusters/aaa`);
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    assertFills(await drawingOn("cluster-canvas"), "first draw");
    const c = await page.locator(byId("cluster-canvas")).boundingBox();
    await page.mouse.move(c.x + c.width / 2, c.y + c.height / 2);
    for (let i = 0; i < 5; i++) await page.mouse.wheel(0, 400);
    await page.waitForFunction(() => {
      const [x0, , x1] = document.querySelector('[data-testid="cluster-canvas"]').dataset.drawing.split(" ").map(Number);
      return x1 - x0 < 300;
    });
    await page.getByRole("button", { name: "Fit", exact: true }).click();
    await page.waitForFunction(() => {
      const el = document.querySelector('[data-testid="cluster-canvas"]');
      const [x0, , x1] = el.dataset.drawing.split(" ").map(Number);
      return x1 - x0 > 300;
    });
    assertFills(await drawingOn("cluster-canvas"), "after Fit");
    await screenshot(page, "whatif-cluster-fit");
  });

  test("the live-updates-lost banner lies over the drawing: the canvas does not move", async () => {
    const layout = await backend.api("/api/v1/clusters/aaa/layout");
    let broken = false;
    let socket = null;
    const nodes = () => layout.nodes.map((n) => ({
      id: n.id, name: n.name, kind: n.kind, server: layout.servers[n.server].name, rack: "r", state: "up", state_since: null,
      ts: new Date().toISOString(), age_ms: 30, stale: false, queue_len: 1, cpu_util: 0.2, power: { watts: 40, source: "model" },
      instances: [],
    }));
    const totals = { nodes: layout.nodes.length, nodes_reporting: layout.nodes.length, nodes_stale: 0, complete: true,
                     power: { watts: 100, source: "model", sources: ["model"] }, throughput_rps: 0, requests_per_joule: null };
    await page.routeWebSocket(/\/live$/, (ws) => {
      if (broken) return ws.close({ code: 1011, reason: "gone" });
      socket = ws;
      let seq = 0;
      const send = (type) => ws.send(JSON.stringify({ type, seq: ++seq, server_time: new Date().toISOString(), stale_after_ms: 500,
        nodes: nodes(), applications: [], totals, ...(type === "snapshot" ? { cluster: { id: "c", name: "aaa" }, instances: [] } : {}) }));
      send("snapshot");
      const timer = setInterval(() => send("update"), 200);
      timer.unref();
      ws.onClose(() => clearInterval(timer));
    });
    // While the channel is broken, the fallbacks (event stream, snapshot polls) fail too.
    await page.route(/\/live\/(stream|snapshot)/, (route) => (broken ? route.abort("connectionreset") : route.continue()));
    await page.reload();
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    await page.locator(byId("color-mode")).selectOption("live");
    await page.locator(byId("live-legend")).filter({ hasText: /of \d+ nodes reporting/ }).waitFor();
    assert.equal(await page.locator(byId("live-banner")).count(), 0);
    const before = await page.locator(byId("cluster-canvas")).boundingBox();
    const drawnBefore = await page.locator(byId("cluster-canvas")).getAttribute("data-drawing");

    broken = true;
    await socket.close({ code: 1011, reason: "gone" });
    const banner = page.locator(byId("live-banner"));
    await banner.waitFor({ timeout: 30_000 });
    assert.match(await banner.innerText(), /Live updates lost/);
    const afterBox = await page.locator(byId("cluster-canvas")).boundingBox();
    assert.deepEqual(afterBox, before, "the banner moved the canvas");
    assert.equal(await page.locator(byId("cluster-canvas")).getAttribute("data-drawing"), drawnBefore);
    // It lies over the top of the drawing.
    const b = await banner.boundingBox();
    assert.ok(b.y >= before.y - 2 && b.y < before.y + 20, `banner at ${b.y}, canvas at ${before.y}`);
    await screenshot(page, "whatif-live-banner", { fullPage: false });
    await page.unrouteAll({ behavior: "ignoreErrors" });
  });
});
