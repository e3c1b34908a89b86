// Accessibility: axe-core (the npm package, run inside the page) on the editor, the dashboard and the lists,
// against the real backend (`e3 up`) in Debian Chromium. A serious or critical violation fails the test, named
// with the elements it concerns; moderate and minor ones are printed.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { rack1WithIotTs } from "./cluster.mjs";
import { axeViolations as violations, byId, launch, newTestPage } from "./browser.mjs";

const BLOCKING = new Set(["serious", "critical"]);

let backend;
let browser;

before(async () => {
  backend = await startBackend();
  browser = await launch();
  await rack1WithIotTs(backend);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

const PAGES = {
  "#/": byId("signed-in-as"),
  "#/editor/iot-ts": byId("dag-node-api"),
  "#/clusters": byId("row-clusters-rack1"),
  "#/clusters/rack1/dashboard": byId("dashboard"),
  "#/applications": byId("row-applications-iot-ts"),
  "#/applications/iot-ts": byId("list-versions"),
  "#/deployments": byId("list-deployments"),
  "#/jobs": "#jobs-title",
  "#/planner": byId("planner"),
};

describe("accessibility (axe-core)", () => {
  for (const [hash, drawn] of Object.entries(PAGES)) {
    test(`${hash}: no serious or critical violation`, async () => {
      const page = await newTestPage(browser, { bypassCSP: true }); // axe is injected as a script tag
      await page.goto(`${backend.url}/${hash}`);
      await page.locator(drawn).first().waitFor();
      await page.waitForLoadState("networkidle");
      const found = await violations(page);
      for (const v of found.filter((v) => !BLOCKING.has(v.impact))) {
        console.log(`# ${hash}: ${v.impact} ${v.id}: ${v.help} (${v.nodes.join(", ")})`);
      }
      const blocking = found.filter((v) => BLOCKING.has(v.impact));
      assert.deepEqual(blocking.map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.join(", ")}`), [],
        `on ${hash}`);
      await page.close();
    });
  }
});
