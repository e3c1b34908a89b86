// The DAG editor as a person works it with the mouse: services dropped from the palette at a point
// of the canvas, ports connected by dragging, edges clicked on their middle.
import { after, before, beforeEach } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage } from "./browser.mjs";

/** The backend (`e3 up`, no agents), Chromium, and the one page a file of editor tests drives, signed in. */
export async function startEditorRun() {
  const [backend, browser] = await Promise.all([startBackend(), launch()]);
  const page = await newTestPage(browser);
  await page.goto(`${backend.url}/#/`);
  await page.locator(byId("signed-in-as")).waitFor();
  return { backend, browser, page };
}

/** For a file of editor tests: the backend, Chromium and one signed-in page started before them and stopped
 * after, and a fresh editor opened before each test (after `prepare(page)`, if given). Returns the run
 * ({backend, browser, page}), filled in once started. */
export function editorTestRun({ prepare } = {}) {
  const run = {};
  before(async () => Object.assign(run, await startEditorRun()));
  after(async () => {
    await run.browser?.close();
    await run.backend?.stop();
  });
  beforeEach(async () => {
    await prepare?.(run.page);
    await openFreshEditor(run.page, run.backend.url);
  });
  return run;
}

/** A new application in a fresh editor at `url` (no draft left from the test before). */
export async function openFreshEditor(page, url) {
  await page.evaluate(() => localStorage.removeItem("e3.draft.new"));
  await page.goto(`${url}/#/editor`);
  await page.reload();
  await page.locator(byId("palette-kvs")).waitFor();
}

/** Drag from one port to another with the mouse, as xyflow expects. */
export async function connectPorts(page, fromId, toId) {
  const from = await page.locator(byId(fromId)).boundingBox();
  const to = await page.locator(byId(toId)).boundingBox();
  await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
  await page.mouse.down();
  await page.mouse.move(to.x + to.width / 2, to.y + to.height / 2, { steps: 12 });
  await page.mouse.up();
}

/** Drag `service` from the palette and let go at (x, y) of the canvas; waits for its node (id = `nodeId`). */
export async function dropService(page, service, x, y, nodeId = service) {
  await page.locator(byId(`palette-${service}`)).dragTo(page.locator(byId("dag-canvas")), {
    targetPosition: { x, y },
  });
  await page.locator(byId(`dag-node-${nodeId}`)).waitFor();
}

/** The drawn edge from node id `from` to `to` (xyflow's SVG group for it: wait for it "attached", since
 * Playwright never calls an SVG group visible). */
export const edgeOf = (page, from, to) => page.locator(byId(`rf__edge-${from}->${to}`));

/** A point of the edge's line where a click reaches it (its middle if nothing covers it there: two edges
 * between the same nodes cross at their middles), as a person clicks where they see the edge. */
export async function edgeMiddle(page, from, to) {
  const at = await edgeOf(page, from, to).evaluate((edge) => {
    const path = edge.querySelector(".react-flow__edge-path");
    const length = path.getTotalLength();
    const matrix = path.getScreenCTM();
    for (const f of [0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8, 0.1, 0.9, 0.05, 0.95, 0.03, 0.97]) {
      const p = path.getPointAtLength(length * f);
      const x = matrix.a * p.x + matrix.c * p.y + matrix.e;
      const y = matrix.b * p.x + matrix.d * p.y + matrix.f;
      if (edge.contains(document.elementFromPoint(x, y))) return { x, y };
    }
    return null;
  });
  if (!at) throw new Error(`no point of the edge ${from} -> ${to} can be clicked`);
  return at;
}
