// End to end, issue 20's UI, against `e3 up` with a cluster of real agents: the emulated rack `rack` (2
// type1-smartnic servers: an e3-agent per host, an e3-nic per SmartNIC) where network namespaces work (root),
// else the local cluster `local` (2 beefy servers on loopback); E3_E2E_CLUSTER=rack|local chooses. The first
// server's power comes from an emulated BMC over IPMI LAN (E3_EMULATED_BMC: its nodes `ipmi-split`), the other's
// from the model. The trio application (api_gateway → kvs with a backup) runs under e3-loadgen's steady load.
// In Debian Chromium a person:
//  (a) reads the dashboard's cost-efficiency panel: the figures the API answers (the test asks the API itself);
//  (b) opens the application's page from the dashboard and sees its energy over time with the source of each
//      figure, chooses another range (the chart asks again, with the new range and step), reads the measured part solid and the model's
//      hatched, "not measured"; types a backwards custom range and reads the API's refusal naming the field; then
//      opens the BMC's node's energy from its card on the dashboard (IPMI-SPLIT, measured);
//  (c) opens the capacity planner, asks for a plan of the stored application and reads the ranked plans, the same
//      the API ranks; a load of 0 is refused naming the field.
// Waits are bounded: history rollups close every 10 s, so the first rows are waited for up to 60 s.
// Screenshots go to frontend/test-results/ (energy-*.png).
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { axeViolations, byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { KEY, deployKv, startLoad, useRack, waitFor } from "./cluster.mjs";

const RACK = useRack();
const CLUSTER = RACK ? "rack" : "local";
const APP = "e2e-energy";
const PAYLOAD = `${KEY} client-1\\nPUT k{seq} v`;
/** The planner's custom server type, as typed in its row and as the API takes it. */
const CUSTOM_FORM = { name: "cheap-host", costUsd: "2000", idleWatts: "60", peakWatts: "150", hostCores: "16", smartnics: "0" };
const CUSTOM_TYPE = { name: "cheap-host", cost_usd: 2000, idle_watts: 60, peak_watts: 150, host_cores: 16, host_core_class: "beefy",
                      smartnics: 0 };
/** The first history rows come once a 10 s rollup has closed after the load began: at most this long. */
const FIRST_ROWS_MS = 60_000;

let backend;
let load;
let browser;
let page;
recordFailures(() => page);
let historyApi = false; // whether this build serves the energy history (GET /applications/{name}/energy)

before(async () => {
  // The first server's power from an emulated BMC (its nodes: ipmi-split, measured), the other's from the model.
  backend = await startBackend({ ...(RACK ? { rackServers: 2 } : { localServers: 2 }), emulatedBmc: true });
  const spec = await (await fetch(`${backend.url}/openapi.json`)).json();
  historyApi = "/api/v1/applications/{name}/energy" in spec.paths;
  const { placed } = await deployKv(backend, CLUSTER, APP, RACK ? { gw: "host", kv: "smartnic" } : {});
  load = startLoad(placed.gw, PAYLOAD, { rate: 500 });
  browser = await launch();
  page = await newTestPage(browser, { bypassCSP: true }); // axe-core is injected to check the chart's accessibility
});

after(async () => {
  load?.stop();
  await browser?.close();
  await backend?.stop();
});

/** A figure as shown ("$13,950", "1.23 M req/$", "850 W") as a number. */
function shownNumber(text) {
  const m = /(-?[\d,]+(?:\.\d+)?)\s*([kMGT]?)/.exec(text.replace("$", ""));
  assert.ok(m, `no number in "${text}"`);
  const scale = { "": 1, k: 1e3, M: 1e6, G: 1e9, T: 1e12 }[m[2]];
  return Number(m[1].replaceAll(",", "")) * scale;
}

/** Whether `shown` is `value` to the three significant digits the UI shows. */
const isFigure = (shown, value) => Math.abs(shownNumber(shown) - value) <= Math.abs(value) * 0.006 + 1e-9;

function sameFigure(shown, value, what) {
  assert.ok(isFigure(shown, value), `${what}: shown "${shown}", API ${value}`);
}

describe("energy in the UI", () => {
  test("(a) the dashboard's cost-efficiency panel shows the figures the API answers", { timeout: 90_000 }, async () => {
    // The page's own answer, caught as it arrives, is what its table must show; the test's own requests (same
    // query) must agree on what does not move with the live load (CAPEX, price, years) and, within 25 %, on the
    // requests per dollar (throughput and power are live figures, asked a moment apart).
    const pageAnswer = page.waitForResponse((r) => r.url().includes(`/api/v1/clusters/${CLUSTER}/cost-efficiency`) && r.ok());
    await page.goto(`${backend.url}/#/clusters/${CLUSTER}/dashboard`);
    const seen = await (await pageAnswer).json();
    const own = await backend.api(`/api/v1/clusters/${CLUSTER}/cost-efficiency?years=5`);
    await page.locator(byId("cost-capex-source")).waitFor();
    await screenshot(page, "energy-cost-panel");

    assert.equal(own.capex.usd, seen.capex.usd);
    assert.equal(own.price_per_kwh.value, seen.price_per_kwh.value);
    assert.deepEqual(own.points.map((p) => p.years), seen.points.map((p) => p.years));
    sameFigure((await page.locator(byId("cost-capex")).innerText()).split("=")[0], own.capex.usd, "CAPEX");
    assert.equal(await page.locator(byId("cost-capex-source")).getAttribute("data-source"), own.capex.source);
    if (seen.unavailable) { // no throughput yet: the API's reason is shown; under load the figures come next
      assert.ok((await page.locator(byId("cost-unavailable")).innerText()).includes(seen.unavailable));
    }
    await page.locator(byId("cost-rpusd")).first().waitFor({ timeout: 30_000 });
    // The table may already show a later answer (it refreshes every 5 s): read it against the next one the page
    // gets, and ask the API again at once, so the live figures of both answers are a moment apart.
    const last = page.waitForResponse((r) => r.url().includes("/cost-efficiency") && r.ok(), { timeout: 15_000 });
    const shownAnswer = await (await last).json();
    const again = await backend.api(`/api/v1/clusters/${CLUSTER}/cost-efficiency?years=5`);
    // React renders the answer a moment after it arrives
    const rowsOf = () => page.locator(byId("cost-rpusd")).allInnerTexts();
    await waitFor(async () => {
      const shown = await rowsOf();
      return shown.length === shownAnswer.points.length && shown.every((t, i) => isFigure(t, shownAnswer.points[i].requests_per_usd));
    }, "the table showing the page's last answer", 5_000).catch(() => undefined); // a mismatch is reported below
    const rows = await rowsOf();
    assert.equal(rows.length, shownAnswer.points.length);
    shownAnswer.points.forEach((p, i) => sameFigure(rows[i], p.requests_per_usd, `requests per $ after ${p.years} years`));
    again.points.forEach((p, i) => {
      const ratio = p.requests_per_usd / shownAnswer.points[i].requests_per_usd;
      assert.ok(ratio > 0.75 && ratio < 1.25, `the API asked by the test: ${p.requests_per_usd} req/$, the page's ${shownAnswer.points[i].requests_per_usd}`);
    });
    sameFigure(await page.locator(byId("cost-watts")).innerText(), shownAnswer.power_watts.value, "power");
    console.log(`cost panel: CAPEX $${own.capex.usd}, ${rows.join(", ")} (the test's own request a moment later: ` +
                `${again.points.map((p) => Math.round(p.requests_per_usd)).join(", ")})`);
  });

  test("(b) the application's energy over time: points with their source; another range asks again; a refusal names the field",
       { timeout: 150_000 }, async (t) => {
    if (!historyApi) {
      t.skip("this build serves no energy history (GET /applications/{name}/energy): the history branch is not merged");
      return;
    }
    const asked = [];
    page.on("request", (r) => {
      if (r.url().includes(`/api/v1/applications/${APP}/energy`)) asked.push(new URL(r.url()));
    });
    // From the dashboard: the application's name links to its page, where its energy is.
    await page.goto(`${backend.url}/#/clusters/${CLUSTER}/dashboard`);
    await page.locator(`${byId(`app-row-${APP}`)} ${byId("app-link")}`).click();
    const panel = page.locator(byId("energy-panel"));
    await panel.waitFor();
    // Bounded wait for the first rollups (the page asks again every 10 s): a source in the legend and bars drawn.
    const started = Date.now();
    await page.locator(byId("energy-legend-source")).first().waitFor({ timeout: FIRST_ROWS_MS });
    console.log(`first energy rows shown after ${((Date.now() - started) / 1000).toFixed(1)} s (bounded at ${FIRST_ROWS_MS / 1000} s)`);
    const steps = Number(await page.locator(byId("energy-chart-watts")).getAttribute("data-steps"));
    assert.ok(steps > 0, "no step with data drawn");
    const legend = await page.locator(byId("energy-legend")).innerText();
    assert.match(legend, /\((measured|not measured)\)/);
    const sources = await page.locator(byId("energy-legend-source")).evaluateAll((els) => els.map((e) => e.getAttribute("data-source")));
    const own = await backend.api(`/api/v1/applications/${APP}/energy?` + asked.at(-1).searchParams.toString());
    const apiSources = new Set(own.points.flatMap((p) => Object.keys(p.joules_by_source ?? {}).length ? Object.keys(p.joules_by_source) : p.source ? [p.source] : []));
    for (const s of sources) assert.ok(apiSources.has(s), `legend source ${s} not in the API's answer (${[...apiSources]})`);
    const withData = own.points.filter((p) => p.joules !== null);
    console.log(`the API's answer: ${withData.length} of ${own.points.length} steps of ${own.step_s} s with data ` +
                `(${withData.map((p) => `${p.ts.slice(11, 19)} ${p.watts_mean?.toFixed(1)} W ${p.source}`).join(", ")}); drawn: ${steps}`);
    if (sources.includes("model")) assert.match(legend, /model \(not measured\)/);
    await screenshot(page, "energy-application-1h");

    assert.equal(asked.at(-1).searchParams.get("step"), "20"); // last 1 h: 20 s steps, 180 at most
    const before = asked.length;
    await page.locator(byId("energy-range-15m")).click();
    await waitFor(() => asked.length > before && asked.at(-1).searchParams.get("step") === "10", "a request for the last 15 min", 10_000);
    const q = asked.at(-1).searchParams;
    assert.ok(Date.parse(q.get("to")) - Date.parse(q.get("from")) <= 15 * 60_000 + 10_000, `from ${q.get("from")} to ${q.get("to")}`);
    await page.locator(`${byId("energy-panel")}[data-step="10"]`).waitFor({ timeout: 5_000 }); // rendered a moment after it asks
    await page.locator(byId("energy-range-15m") + '[aria-pressed="true"]').waitFor();
    // Over time: three 10 s steps with data (a rollup closes every 10 s; bounded), J/request drawn as a line.
    const waited = Date.now();
    await page.locator(`${byId("energy-chart-watts")}:not([data-steps="0"]):not([data-steps="1"]):not([data-steps="2"])`)
      .waitFor({ timeout: FIRST_ROWS_MS });
    console.log(`three 10 s steps drawn after another ${((Date.now() - waited) / 1000).toFixed(1)} s (bounded at ${FIRST_ROWS_MS / 1000} s)`);
    assert.ok((await page.locator(`${byId("energy-chart-joules_per_request")} path.energy-line`).count()) >= 1, "no J/request line");
    // Measured and modelled apart: the kvs primary and its backup run on different servers, one measured by the
    // BMC (ipmi-split), one modelled; once both have closed rollups (bounded), the chart stacks them, the model's
    // bars hatched and called not measured, the measured ones solid.
    await page.locator(`${byId("energy-legend-source")}[data-source="ipmi-split"]`).waitFor({ timeout: FIRST_ROWS_MS });
    await page.locator(`${byId("energy-legend-source")}[data-source="model"]`).waitFor({ timeout: FIRST_ROWS_MS });
    const legend15 = await page.locator(byId("energy-legend")).innerText();
    assert.match(legend15, /IPMI, a server's reading split to its nodes \(measured\)/);
    assert.match(legend15, /model \(not measured\)/);
    const fills = await page.locator(`${byId("energy-chart-watts")} rect.energy-bar`).evaluateAll((rects) =>
      rects.map((r) => ({ source: r.getAttribute("data-source"), fill: getComputedStyle(r).fill })));
    const model = fills.filter((f) => f.source === "model");
    const measured = fills.filter((f) => f.source === "ipmi-split");
    assert.ok(model.length > 0 && measured.length > 0, `bars: ${JSON.stringify(fills.slice(-6))}`);
    for (const f of model) assert.match(f.fill, /^url\(/, "a model bar not hatched");
    for (const f of measured) assert.match(f.fill, /^rgb/, "a measured bar not solid");
    console.log(`bars: ${measured.length} measured (ipmi-split) parts solid ${measured[0].fill}, ${model.length} model parts hatched`);
    await screenshot(page, "energy-application-15m");
    const serious = (await axeViolations(page)).filter((v) => v.impact === "serious" || v.impact === "critical");
    assert.deepEqual(serious.map((v) => `${v.id}: ${v.help} at ${v.nodes.join(", ")}`), [], "the energy chart's accessibility (axe-core)");

    // A backwards custom range: sent as typed; the API's 422 is shown naming its field, and no chart.
    await page.locator(byId("energy-range-custom")).click();
    await page.locator(byId("energy-from")).fill("2026-01-02T10:00");
    await page.locator(byId("energy-to")).fill("2026-01-01T10:00");
    await page.locator(byId("energy-range-apply")).click();
    const error = page.locator(byId("energy-error"));
    await error.waitFor();
    const text = await error.innerText();
    assert.match(text, /\b(from|to)\b:/, `the refusal names no field: ${text}`);
    assert.equal(await page.locator(byId("energy-chart-watts")).count(), 0);
    await screenshot(page, "energy-application-refused");
    console.log(`refusal shown: ${text.replace(/\n/g, " / ")}`);

    // The BMC's node: its card's power badge says IPMI-SPLIT, drawn as measured; its name opens its energy, all
    // of it measured.
    await page.goto(`${backend.url}/#/clusters/${CLUSTER}/dashboard`);
    const card = page.locator('article.dash-node', { has: page.locator(`${byId("power-source")}[data-source="ipmi-split"]`) }).first();
    await card.waitFor();
    assert.match(await card.locator(byId("power-source")).getAttribute("class"), /dash-source-measured/);
    const nodeName = await card.locator(byId("node-energy-link")).innerText();
    await card.locator(byId("node-energy-link")).click();
    await page.locator(byId("node-energy-page")).waitFor();
    await page.locator(`${byId("node-energy-page")} ${byId("energy-legend-source")}[data-source="ipmi-split"]`).waitFor({ timeout: FIRST_ROWS_MS });
    console.log(`node ${nodeName}: ${await page.locator(byId("energy-legend")).innerText()}`);
    await page.locator(byId("energy-range-15m")).click();
    await page.locator(`${byId("energy-panel")}[data-step="10"] ${byId("energy-chart-watts")}`).waitFor({ timeout: 15_000 });
    await screenshot(page, "energy-node");
  });

  test("(c) the capacity planner ranks plans for a stored application, as the API does; a bad load is named", { timeout: 120_000 }, async () => {
    await page.goto(`${backend.url}/#/`);
    await page.locator(byId("nav-planner")).click();
    await page.locator(byId("planner")).waitFor();
    await page.locator(byId("plan-applications")).getByLabel(APP, { exact: true }).check();
    await page.locator(byId("plan-load")).fill("0");
    await page.locator(byId("plan-submit")).click();
    const loadError = await page.locator(byId("plan-load-errors")).innerText();
    assert.match(loadError, /load_rps/);

    await page.locator(byId("plan-load")).fill("20000");
    await page.locator(byId("plan-years")).fill("3");
    await page.locator(byId("plan-all-types")).uncheck();
    for (const type of ["beefy", "type1-smartnic"]) await page.locator(byId("plan-server-types")).getByLabel(type, { exact: true }).check();
    // A server type of one's own: a cheaper beefy-like host.
    await page.locator(byId("plan-add-custom")).click();
    for (const [field, value] of Object.entries(CUSTOM_FORM)) await page.locator(byId(`plan-custom-0-${field}`)).fill(value);
    await page.locator(byId("plan-submit")).click();
    await page.locator(byId("plan-results")).waitFor({ timeout: 60_000 });
    await screenshot(page, "energy-planner");

    const own = await backend.api("/api/v1/plans", {
      method: "POST",
      body: JSON.stringify({ applications: [{ name: APP }], load_rps: 20000, years: 3, server_types: ["beefy", "type1-smartnic"],
                             custom_server_types: [CUSTOM_TYPE] }),
    });
    assert.ok(own.plans.length > 0);
    const shown = await page.locator(`${byId("plan-table")} tbody tr[data-feasible]`).evaluateAll((rows) =>
      rows.map((r) => ({ servers: r.querySelector('[data-testid="plan-servers"]').textContent, feasible: r.getAttribute("data-feasible") })));
    const expected = own.plans.map((p) => ({
      servers: Object.entries(p.servers).sort(([a, x], [b, y]) => y - x || a.localeCompare(b)).map(([k, n]) => `${n} × ${k}`).join(" + "),
      feasible: String(p.feasible),
    }));
    assert.deepEqual(shown, expected);
    const best = own.plans[0];
    const row = page.locator(byId("plan-1"));
    sameFigure(await row.locator(byId("plan-capex")).innerText(), best.capex_usd, "CAPEX");
    if (best.feasible) {
      sameFigure(await row.locator(byId("plan-rpusd-3")).innerText(), best.cost_efficiency[2].requests_per_dollar, "requests per $ after 3 years");
    }
    assert.match(await page.locator(byId("plan-assumptions")).innerText(), new RegExp(own.assumptions[0].slice(0, 20).replace(/[.*+?^${}()|[\]\\$]/g, "\\$&")));
    assert.ok(shown.some((r) => r.servers.includes(CUSTOM_TYPE.name)), "the custom type in no plan");
    console.log(`plans: ${shown.map((s) => s.servers).join("; ")}`);
  });
});
