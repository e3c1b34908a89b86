// End to end: the DAG editor's fixes of issue #18 (item 4), as a person checks them in Debian Chromium
// against the real backend (`e3 up`): edges selected and deleted, drops under the pointer, a refused
// save's markers, one label per cycle, no errors before anything is typed, the keyboard (palette, arrows,
// shortcuts), the palette's search, and copy/paste of a selection.
import assert from "node:assert/strict";
import { after, before, beforeEach, describe, test } from "node:test";

import { byId, screenshot } from "./browser.mjs";
import { connectPorts, dropService, edgeMiddle, edgeOf, openFreshEditor, startEditorRun } from "./editor.mjs";

/** The backend, the browser and the one page every test drives. */
let backend, browser, page;

before(async () => {
  ({ backend, browser, page } = await startEditorRun());
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

beforeEach(() => openFreshEditor(page, backend.url));

const RED = "rgb(198, 40, 40)";
const stroke = (edge) => edge.locator(".react-flow__edge-path").evaluate((p) => getComputedStyle(p).stroke);
const canvasBox = () => page.locator(byId("dag-canvas")).boundingBox();
const summary = () => page.locator(byId("validation-summary"));

/** api_gateway -> kvs, dropped apart and connected. */
async function buildPair() {
  await dropService(page, "api_gateway", 200, 200);
  await dropService(page, "kvs", 560, 200);
  await connectPorts(page, "port-out-api_gateway", "port-in-kvs");
  await edgeOf(page, "api_gateway", "kvs").waitFor({ state: "attached" });
}

describe("DAG editor", () => {
  test("a fresh editor shows a hint for the name and no errors; typing a bad name says why in plain words", async () => {
    await page.locator(byId("app-name-hint")).filter({ hasText: "lowercase letters, digits and '-'" }).waitFor();
    await page.waitForTimeout(1_000); // the server's check of the empty document has answered by now
    const text = await page.locator("body").innerText();
    assert.doesNotMatch(text, /problem\(s\)|is required|not valid|pattern|\^\[/);
    assert.equal(await page.locator(".field-error").count(), 0);
    await screenshot(page, "editor-fresh");

    await page.locator(byId("app-name")).fill("Shop");
    const error = page.locator(".field-error").filter({ hasText: "'Shop' is not valid" });
    await error.waitFor();
    assert.doesNotMatch(await error.innerText(), /pattern|\^\[/);
    assert.doesNotMatch(await summary().innerText(), /pattern|\^\[/);
  });

  test("drops a service under the pointer, the first one too", async () => {
    const canvas = await canvasBox();
    for (const [service, x, y] of [["api_gateway", 300, 250], ["kvs", 700, 120]]) {
      await dropService(page, service, x, y);
      const node = await page.locator(byId(`dag-node-${service}`)).boundingBox();
      const at = { x: canvas.x + x, y: canvas.y + y };
      assert.ok(node.x <= at.x && at.x <= node.x + node.width && node.y <= at.y && at.y <= node.y + node.height,
                `${service} dropped at ${JSON.stringify(at)} is drawn at ${JSON.stringify(node)}`);
    }
  });

  test("clicks an edge to select it (highlighted) and deletes it with Delete, keeping its nodes", async () => {
    await buildPair();
    const edge = edgeOf(page, "api_gateway", "kvs");
    const before = await stroke(edge);
    await page.locator(byId("dag-node-kvs")).click(); // a node selected first: Delete must not take it
    const middle = await edgeMiddle(page, "api_gateway", "kvs");
    await page.mouse.click(middle.x, middle.y);
    await page.locator(`${byId("rf__edge-api_gateway->kvs")}.selected`).waitFor({ state: "attached" });
    assert.notEqual(await stroke(edge), before, "a selected edge is drawn differently");
    assert.equal(await page.locator(".dag-node-selected").count(), 0);
    await screenshot(page, "editor-edge-selected");
    await page.keyboard.press("Delete");
    await edge.waitFor({ state: "detached" });
    await page.locator(byId("dag-node-api_gateway")).waitFor();
    await page.locator(byId("dag-node-kvs")).waitFor();

    await connectPorts(page, "port-out-api_gateway", "port-in-kvs"); // and with Backspace
    const again = await edgeMiddle(page, "api_gateway", "kvs");
    await page.mouse.click(again.x, again.y);
    await page.locator(`${byId("rf__edge-api_gateway->kvs")}.selected`).waitFor({ state: "attached" });
    await page.keyboard.press("Backspace");
    await edge.waitFor({ state: "detached" });
    assert.equal(await page.locator(".react-flow__node").count(), 2);
  });

  test("labels a cycle once, clear of the nodes, with both edges red", async () => {
    await buildPair();
    await connectPorts(page, "port-out-kvs", "port-in-api_gateway");
    const label = page.locator(byId("canvas-notice"));
    await label.waitFor();
    assert.equal(await page.locator(byId("dag-canvas")).getByText(/cycle: /).count(), 1, "the cycle is named once on the canvas");
    assert.match(await label.innerText(), /^cycle: (api_gateway → kvs → api_gateway|kvs → api_gateway → kvs)$/);
    assert.equal(await page.locator(".dag-edge-error").count(), 0);
    assert.equal(await stroke(edgeOf(page, "api_gateway", "kvs")), RED);
    assert.equal(await stroke(edgeOf(page, "kvs", "api_gateway")), RED);
    const box = await label.boundingBox();
    for (const id of ["api_gateway", "kvs"]) {
      const node = await page.locator(byId(`dag-node-${id}`)).boundingBox();
      assert.ok(box.y + box.height <= node.y || node.y + node.height <= box.y || box.x + box.width <= node.x ||
                node.x + node.width <= box.x, `the label does not cover ${id}`);
    }
    await screenshot(page, "editor-cycle-label");
  });

  test("a refused save keeps its markers; fixing the errors clears them and the 'Save failed' line", async () => {
    await buildPair();
    await connectPorts(page, "port-out-kvs", "port-in-api_gateway");
    await page.locator(byId("dag-node-kvs")).click();
    await page.locator(byId("prop-shards")).fill("0");
    await page.locator(byId("app-name")).fill("loop");
    await page.locator(byId("node-error-kvs")).waitFor();
    await page.locator(byId("save-button")).click();
    const failed = page.locator(byId("save-failed"));
    await failed.waitFor();
    await page.waitForTimeout(500); // nothing clears the markers after the answer
    await page.locator(byId("node-error-kvs")).filter({ hasText: "at least 1" }).waitFor({ timeout: 1_000 });
    assert.equal(await page.locator(byId("canvas-notice")).filter({ hasText: "cycle" }).count(), 1);
    assert.equal(await stroke(edgeOf(page, "kvs", "api_gateway")), RED);
    const listed = await summary().innerText();
    assert.match(listed, /edges: cycle/);
    assert.match(listed, /node kvs: shards/);
    assert.match(await failed.innerText(), /2 problem/);
    await screenshot(page, "editor-save-refused");

    await page.locator(byId("prop-shards")).fill("1");
    await failed.waitFor({ state: "detached" });
    await page.locator(byId("node-error-kvs")).filter({ hasText: "at least" }).waitFor({ state: "detached" });
    const back = await edgeMiddle(page, "kvs", "api_gateway");
    await page.mouse.click(back.x, back.y);
    await page.keyboard.press("Delete");
    await summary().filter({ hasText: "Valid DAG" }).waitFor();
    assert.equal(await page.locator(`.dag-node-error, .dag-edge-error, ${byId("canvas-notice")}`).count(), 0);
    assert.equal(await stroke(edgeOf(page, "api_gateway", "kvs")) === RED, false);
    await page.locator(byId("save-button")).click();
    await page.locator(byId("deploy-link")).waitFor();
  });

  test("builds with the keyboard: Tab to the palette, Enter adds, arrows move, Delete removes", async () => {
    let focused = "";
    for (let i = 0; i < 40 && !/^palette-(?!search)/.test(focused); i++) {
      await page.keyboard.press("Tab");
      focused = await page.evaluate(() => document.activeElement?.getAttribute("data-testid") ?? "");
    }
    assert.match(focused, /^palette-/, "Tab reaches a service of the palette");
    const service = focused.slice("palette-".length);
    await page.keyboard.press("Enter");
    const node = page.locator(byId(`dag-node-${service}`));
    await node.waitFor();
    const canvas = await canvasBox();
    const placed = await node.boundingBox();
    assert.ok(placed.x >= canvas.x && placed.x + placed.width <= canvas.x + canvas.width, "added in view");

    for (let i = 0; i < 3; i++) await page.keyboard.press("ArrowRight");
    await page.keyboard.press("Shift+ArrowDown");
    await page.waitForFunction(([id, x, y]) => {
      const r = document.querySelector(`[data-testid="${id}"]`).getBoundingClientRect();
      return Math.abs(r.x - x) < 1 && Math.abs(r.y - y) < 1;
    }, [`dag-node-${service}`, placed.x + 30, placed.y + 50]);

    await page.keyboard.press("Tab"); // the next service, added with Space, clear of the first
    const next = (await page.evaluate(() => document.activeElement?.getAttribute("data-testid"))).slice("palette-".length);
    await page.keyboard.press(" ");
    const second = page.locator(byId(`dag-node-${next}`));
    await second.waitFor();
    const a = await node.boundingBox();
    const b = await second.boundingBox();
    assert.ok(a.x + a.width <= b.x || b.x + b.width <= a.x || a.y + a.height <= b.y || b.y + b.height <= a.y,
              "the second node does not cover the first");
    await page.keyboard.press("Delete");
    await second.waitFor({ state: "detached" });
    await node.waitFor();

    await page.locator(`${byId("shortcuts")} summary`).click();
    const list = await page.locator(byId("shortcuts")).innerText();
    for (const key of ["Delete", "Ctrl+Z", "Ctrl+C / Ctrl+V", "Arrow keys", "Enter"]) assert.ok(list.includes(key), key);
    await screenshot(page, "editor-shortcuts");
  });

  test("the palette's search filters services and templates by name", async () => {
    await page.locator(byId("template-iot-ts")).waitFor();
    await page.locator(byId("palette-search")).fill("kv");
    await page.locator(byId("palette-api_gateway")).waitFor({ state: "detached" });
    assert.equal(await page.locator(byId("palette-kvs")).isVisible(), true);
    assert.equal(await page.locator(".palette-item").count(), 1);
    await page.locator(byId("palette-search")).fill("IOT-T");
    await page.locator(byId("template-iot-ts")).waitFor();
    assert.equal(await page.locator(".template-button").count(), 1);
    await page.locator(byId("palette-search")).fill("");
    await page.locator(byId("palette-api_gateway")).waitFor();
  });

  test("copies two selected nodes and pastes them with the edge between them; undo takes the paste back", async () => {
    await buildPair();
    await page.locator(byId("dag-node-api_gateway")).click();
    await page.locator(byId("dag-node-kvs")).click({ modifiers: ["Shift"] });
    await page.locator(byId("selection-count")).filter({ hasText: "2 nodes selected" }).waitFor();
    await page.keyboard.press("Control+c");
    await page.keyboard.press("Control+v");
    await page.locator(byId("dag-node-api_gateway-2")).waitFor();
    await page.locator(byId("dag-node-kvs-2")).waitFor();
    await edgeOf(page, "api_gateway-2", "kvs-2").waitFor({ state: "attached" });
    assert.equal(await page.locator(".react-flow__node").count(), 4);
    assert.equal(await page.locator(".react-flow__edge").count(), 2);
    const original = await page.locator(byId("dag-node-kvs")).boundingBox();
    const copy = await page.locator(byId("dag-node-kvs-2")).boundingBox();
    assert.ok(copy.x > original.x && copy.y > original.y, "pasted offset from the original");
    await screenshot(page, "editor-pasted");

    await page.keyboard.press("Control+z");
    await page.locator(byId("dag-node-kvs-2")).waitFor({ state: "detached" });
    assert.equal(await page.locator(".react-flow__node").count(), 2);
    await page.keyboard.press("Control+y");
    await edgeOf(page, "api_gateway-2", "kvs-2").waitFor({ state: "attached" });
  });
});
