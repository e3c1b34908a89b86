// Accessibility: axe-core (the npm package, run inside the page) on the editor, the dashboard and the lists,
// against the real backend (`e3 up`) in Debian Chromium. A serious or critical violation fails the test, named
// with the elements it concerns; moderate and minor ones are printed.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { rack1WithIotTs } from "./cluster.mjs";
import { byId, launch, newTestPage } from "./browser.mjs";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
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

/** axe's violations on the page as it is now (WCAG 2.0/2.1 A and AA rules). */
async function violations(page) {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
  });
}

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
