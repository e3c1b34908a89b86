// End to end: issue #18's "a DAG drawn by hand in the editor, with no template, deploys and serves requests on the
// emulated rack", as a person does it in Debian Chromium against `e3 up` with its emulated rack `rack` (root, network
// namespaces: 2 type1-smartnic servers, an e3-agent per host, an e3-nic per SmartNIC). A person:
//  1. opens an empty editor, drags api_gateway, kvs, sql and count from the palette (the chain), connects
//     them, names the application and saves it, writing no configuration; the gateway's key, generated at the
//     save, is in its form when the application is opened again;
//  2. goes to it from the Applications list, deploys it from its Deploy page onto the rack and sees its deployment's page read Running, every instance
//     running on the rack's nodes;
//  3. sends requests with `e3 request` (the key from the form): they walk the chain and are answered, a guessed
//     key is refused; with e3-loadgen sending a steady load, the deployment's page shows a measured throughput and
//     the placement view's live colours the traffic on the DAG's edges.
// Screenshots go to frontend/test-results/ (handdrawn-*.png). Heavy: run it alone.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, test } from "node:test";

import { e3Bin, rackPossible, startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { startLoad, waitFor } from "./cluster.mjs";
import { connectPorts, dropService, edgeOf, openFreshEditor } from "./editor.mjs";

const CLUSTER = "rack";
const APP = "drawn-by-hand";
const CHAIN = ["api_gateway", "kvs", "sql", "count"];
const INSTANCES = CHAIN.length * 2; // the editor's default: one shard, one backup
const HEX32 = /^[0-9a-f]{32}$/;
const RATE = 40; // requests/s, under the gateway's default rate limit (100/s per client)

let backend;
let browser;
let page;
recordFailures(() => page);
let load;
let key; // the gateway's key, as its form shows it
let deploymentId; // as the deploy page links it

/** `e3 request` to the deployment's gateway: {ok, reply, address} (ok false: an error reply, or none). */
function request(data) {
  const args = ["request", deploymentId, "--node", "api_gateway", "--data", data, "--output", "json"];
  const env = { ...process.env, E3_URL: backend.url, E3_TOKEN: backend.token };
  return new Promise((done) => {
    execFile(e3Bin, args, { env, timeout: 60_000 }, (error, stdout, stderr) => {
      let shown = null;
      try {
        shown = JSON.parse(stdout);
      } catch {
        // nothing answered: its reason is on stderr
      }
      done({ ok: !error, reply: shown?.reply ?? null, address: shown?.address ?? null, said: `${stdout}${stderr}`.trim() });
    });
  });
}

const form = () => page.locator(byId("config-form"));

// Where no rack can run (not root, no network namespaces) there is nothing to test: skipped, saying why.
const SKIP = rackPossible() ? false : "the emulated rack needs root and network namespaces";

describe("a DAG drawn by hand serves requests on the emulated rack", { skip: SKIP }, () => {
  before(async () => {
    backend = await startBackend({ rackServers: 2 });
    browser = await launch();
    page = await newTestPage(browser);
  });

  after(async () => {
    load?.stop();
    await browser?.close();
    await backend?.stop(); // and the rack's namespaces and bridge, even if `e3 up` had to be killed
  });

  test("drawn from the palette with no template, connected, named and saved; the gateway's key is generated", async () => {
    await page.goto(`${backend.url}/#/`);
    await page.locator(byId("signed-in-as")).waitFor();
    await openFreshEditor(page, backend.url);
    assert.equal(await page.locator(".react-flow__node").count(), 0, "the editor starts empty");
    const at = { api_gateway: [140, 160], kvs: [460, 160], sql: [140, 420], count: [460, 420] };
    for (const service of CHAIN) await dropService(page, service, ...at[service]);
    for (let i = 1; i < CHAIN.length; i++) {
      await connectPorts(page, `port-out-${CHAIN[i - 1]}`, `port-in-${CHAIN[i]}`);
      await edgeOf(page, CHAIN[i - 1], CHAIN[i]).waitFor({ state: "attached" });
    }
    assert.equal(await page.locator(".react-flow__edge").count(), CHAIN.length - 1);
    await page.locator(byId("dag-node-api_gateway")).click();
    assert.equal(await form().getByLabel("keys (required)", { exact: true }).inputValue(), "", "no key typed");
    assert.match(await page.locator(byId("config-note-keys")).innerText(), /generated when saved/);
    await page.locator(byId("app-name")).fill(APP);
    await page.locator(byId("validation-summary")).filter({ hasText: "Valid DAG" }).waitFor();
    await screenshot(page, "handdrawn-editor");
    await page.locator(byId("save-button")).click();
    await page.locator(byId("deploy-link")).waitFor();

    // At once, the gateway's form shows the key the save generated (no "generated when saved" left).
    await page.locator(byId("dag-node-api_gateway")).click();
    const keys = form().getByLabel("keys (required)", { exact: true });
    await waitFor(async () => HEX32.test(await keys.inputValue()), "the generated key in the gateway's form");
    key = await keys.inputValue();
    assert.equal(await page.locator(byId("config-note-keys")).count(), 0);
    // Opened again, the same key.
    await page.goto(`${backend.url}/#/editor/${APP}`);
    await page.reload();
    await page.locator(byId("dag-node-api_gateway")).click();
    await waitFor(async () => (await keys.inputValue()) === key, "the same key after reopening");
    const stored = (await backend.api(`/api/v1/applications/${APP}`)).spec.spec;
    assert.deepEqual(stored.nodes.map((n) => n.service).sort(), [...CHAIN].sort());
    assert.equal(stored.nodes.find((n) => n.service === "api_gateway").config.keys, key);
    await screenshot(page, "handdrawn-saved-key");
  });

  test("deployed from the Deploy page onto the rack; its page reads Running, every instance on the rack", { timeout: 240_000 }, async () => {
    assert.ok(key, "saved by the test before");
    // From the Applications list, to the application and its deploy link.
    await page.locator(byId("nav-applications")).click();
    await page.locator(byId(`row-applications-${APP}`)).getByRole("link", { name: APP, exact: true }).click();
    await page.getByRole("link", { name: "deploy", exact: true }).click();
    await page.waitForURL(new RegExp(`#/deploy/${APP}$`));
    await page.locator(`${byId("cluster-select")} option[value="${CLUSTER}"]`).waitFor({ state: "attached" });
    await page.locator(byId("cluster-select")).selectOption(CLUSTER);
    await page.locator(byId("deploy-button")).click();
    await page.locator(byId("job-state")).filter({ hasText: /^(placed|failed)$/ }).waitFor({ timeout: 90_000 });
    assert.equal(await page.locator(byId("job-state")).innerText(), "placed", await page.locator(byId("job-panel")).innerText());
    const href = await page.locator(byId("view-deployment")).getAttribute("href");
    deploymentId = decodeURIComponent(href.replace(/^#\/deployments\//, ""));
    await page.locator(byId("view-deployment")).click();
    await page.waitForURL(/#\/deployments\//);

    const settled = page.locator(`${byId("deployment-status")}:not([data-status="placing"]):not([data-status="deploying"])`);
    await settled.waitFor({ timeout: 120_000 });
    const headline = await page.locator(byId("deployment-status-text")).innerText();
    if ((await settled.getAttribute("data-status")) !== "running") await screenshot(page, "handdrawn-not-running");
    assert.equal(await settled.getAttribute("data-status"), "running", headline);
    assert.equal(headline, `Running — all ${INSTANCES} instances running`);
    assert.match(await page.locator(byId("deployment-facts")).innerText(), new RegExp(`${APP} v1[\\s\\S]*${CLUSTER}`));
    const rows = page.locator(`${byId("list-instances")} tbody tr`);
    await rows.nth(INSTANCES - 1).waitFor();
    assert.equal(await rows.count(), INSTANCES);
    assert.equal(await rows.filter({ has: page.locator(`${byId("instance-state")}[data-state="running"]`) }).count(), INSTANCES);
    const cells = await rows.allInnerTexts();
    assert.ok(cells.some((r) => /\(smartnic\)/.test(r)) && cells.some((r) => /\(host\)/.test(r)),
              `placed on the rack's hosts and SmartNICs: ${cells.join(" | ")}`);
    await screenshot(page, "handdrawn-running");
  });

  test("answers requests through the gateway with its key, refuses a guessed one, and the UI shows the traffic", { timeout: 180_000 }, async () => {
    assert.ok(deploymentId, "deployed by the test before");
    // The first request may wait for the rack's ARP: asked again until answered.
    const put = await waitFor(async () => {
      const r = await request(`${key} client-1\\nPUT colour blue\\nINSERT id=7 value=21.5\\nADD alice`);
      return r.ok ? r : null;
    }, "a reply through the gateway", 30_000, 500);
    assert.equal(put.reply, "ALLOW\nOK\nOK 1\n\nNEW"); // gateway, kvs, sql (its line, then an empty one), count
    const get = await request(`${key} client-1\\nGET colour\\nSELECT WHERE id = 7\\nCOUNT`);
    assert.ok(get.ok, get.said);
    assert.equal(get.reply, "ALLOW\nVALUE blue\n7\t21.5\n\nCOUNT 1");
    const guessed = await request("guessed-key client-1\\nGET colour");
    assert.equal(guessed.ok, false);
    assert.equal(guessed.reply, "UNAUTHORIZED");
    const [address, port] = [get.address.slice(0, get.address.lastIndexOf(":")), Number(get.address.split(":").at(-1))];
    const entry = { address, port }; // the gateway's, as `e3 request` names it

    // A steady load of reads down the whole chain: the deployment's page measures it.
    load = startLoad(entry, `${key} client-1\\nGET colour\\nSELECT WHERE id = 7\\nCOUNT`, { rate: RATE, seconds: 150 });
    const throughput = page.locator(`${byId("figure-throughput")} td`).nth(1);
    const shown = [];
    const rps = (text) => (/ req\/s$/.test(text) ? Number.parseFloat(text.replace(/,/g, "")) : Number.NaN);
    await waitFor(async () => {
      shown.push(await throughput.innerText());
      return rps(shown.at(-1)) >= RATE / 2;
    }, `a measured throughput near the ${RATE} requests/s offered`, 60_000, 1_000).catch((e) => {
      throw new Error(`${e.message}; shown: ${shown.join(" → ")}`);
    });
    console.log(`measured throughput while ${RATE} requests/s are offered: ${shown.join(" → ")}`);
    assert.doesNotMatch(await page.locator(byId("measured-note")).innerText(), /^Measured:/);
    await screenshot(page, "handdrawn-measured");

    // The placement view, coloured live: traffic on the DAG's edges, as requests/s.
    await page.locator(byId("deployment-cluster")).click();
    await page.waitForURL(new RegExp(`#/clusters/${CLUSTER}`));
    await page.locator(`${byId("cluster-canvas")}[data-render-ms]`).waitFor({ timeout: 60_000 });
    await page.locator(byId("color-mode")).selectOption("live");
    const legend = page.locator(byId("live-legend"));
    // Its traffic scale goes up to the busiest edge's rate.
    const busiest = async () => Math.max(0, ...[...(await legend.innerText()).matchAll(/([\d.,]+) req\/s/g)]
      .map((m) => Number.parseFloat(m[1].replace(/,/g, ""))));
    await waitFor(async () => (await busiest()) >= RATE / 2, "the edges' traffic in the live legend", 60_000, 1_000);
    assert.doesNotMatch(await legend.innerText(), /No DAG edge with current figures/);
    console.log(`live legend: ${(await legend.innerText()).replace(/\s+/g, " ")}`);
    await screenshot(page, "handdrawn-placement-live");
  });
});
