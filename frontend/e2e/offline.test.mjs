// E3 in a rack without internet: the UI and the API docs (/docs, /redoc) in Debian Chromium against the real
// backend (`e3 up`), with every request to another host aborted. Any such request, console error or uncaught
// exception fails the test: everything a page needs must come from E3 itself.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { rack1WithIotTs } from "./cluster.mjs";
import { byId, launch, newTestPage, screenshot } from "./browser.mjs";

/** How a rack's operators reach E3: by a name that is not loopback. Only this test's browser resolves it, to
 * 127.0.0.1; Swagger UI has code for hosts other than localhost (its online validator), so /docs is opened under
 * this name too. */
const RACK_NAME = "e3.rack.test";

let backend;
let browser;

before(async () => {
  backend = await startBackend();
  browser = await launch([`--host-resolver-rules=MAP ${RACK_NAME} 127.0.0.1`]);
  await rack1WithIotTs(backend);
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

/** A page of `chromium` that may only reach `host`: every request to another host is aborted; `problems` lists
 * those, any WebSocket to another host, every console error and every uncaught exception. */
async function offlinePage(chromium, host) {
  const page = await newTestPage(chromium);
  const problems = [];
  await page.route("**/*", (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === host) return route.continue();
    problems.push(`request to another host: ${url.href}`);
    return route.abort("internetdisconnected");
  });
  page.on("websocket", (ws) => {
    if (new URL(ws.url()).hostname !== host) problems.push(`WebSocket to another host: ${ws.url()}`);
  });
  page.on("console", (m) => {
    if (m.type() === "error") problems.push(`console error: ${m.text()} (${m.location().url})`);
  });
  page.on("pageerror", (e) => problems.push(`uncaught: ${e.message}`));
  return { page, problems };
}

/** Swagger UI at `url` has drawn the spec: its title, and the list_clusters operation (its deep-link id). */
async function swaggerRendered(page, url) {
  await page.goto(url);
  await page.locator(".swagger-ui .info .title").filter({ hasText: "E3 control plane" }).waitFor();
  await page.locator('[id$="-list_clusters"].opblock').waitFor();
  // What would load late (fonts, images of opened sections) has had its chance to.
  await page.waitForLoadState("networkidle");
}

describe("E3 with no internet", () => {
  test("/docs renders Swagger UI from E3 alone", async () => {
    const { page, problems } = await offlinePage(browser, new URL(backend.url).hostname);
    await swaggerRendered(page, `${backend.url}/docs`);
    await page.locator('[id$="-list_clusters"].opblock .opblock-summary').click();
    await page.locator('[id$="-list_clusters"].opblock .opblock-body').waitFor();
    await page.waitForLoadState("networkidle");
    await screenshot(page, "offline-docs", { fullPage: false });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("/docs under a rack's host name renders from E3 alone", async () => {
    const { page, problems } = await offlinePage(browser, RACK_NAME);
    await swaggerRendered(page, `http://${RACK_NAME}:${new URL(backend.url).port}/docs`);
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("/redoc renders ReDoc from E3 alone", async () => {
    const { page, problems } = await offlinePage(browser, new URL(backend.url).hostname);
    await page.goto(`${backend.url}/redoc`);
    await page.locator(".api-info h1").filter({ hasText: "E3 control plane" }).waitFor();
    await page.locator('[data-section-id="operation/list_clusters"]').waitFor();
    await page.waitForLoadState("networkidle");
    await screenshot(page, "offline-redoc", { fullPage: false });
    assert.deepEqual(problems, []);
    await page.close();
  });

  test("the UI's pages load from E3 alone", async () => {
    const { page, problems } = await offlinePage(browser, new URL(backend.url).hostname);
    // Each page, and what shows it has drawn.
    const pages = {
      "#/": byId("signed-in-as"),
      "#/editor": byId("dag-canvas"),
      "#/editor/iot-ts": byId("dag-node-api"),
      "#/clusters": byId("row-clusters-rack1"),
      "#/clusters/rack1": `${byId("cluster-canvas")}[data-render-ms]`,
      "#/clusters/rack1/dashboard": byId("dashboard"),
      "#/applications": byId("row-applications-iot-ts"),
      "#/applications/iot-ts": byId("list-versions"),
      "#/deployments": byId("list-deployments"),
      "#/jobs": "#jobs-title",
    };
    for (const [hash, drawn] of Object.entries(pages)) {
      await page.goto(`${backend.url}/${hash}`);
      await page.locator(drawn).first().waitFor();
      await page.waitForLoadState("networkidle");
      assert.deepEqual(problems, [], `on ${hash}`);
    }
    await page.close();
  });
});
