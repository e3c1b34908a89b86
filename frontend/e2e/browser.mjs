// Debian's Chromium driven by playwright-core (never a downloaded browser), and screenshots
// saved under frontend/test-results/ with their paths printed.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { afterEach, beforeEach } from "node:test";
import { chromium } from "playwright-core";

export const resultsDir = resolve(import.meta.dirname, "../test-results");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"];

/** Chromium, with `args` added to the usual flags. */
export async function launch(args = []) {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: [...FLAGS, ...args] });
}

/** A test id's CSS selector. */
export const byId = (id) => `[data-testid="${id}"]`;

/** A page of the e2e size (1400 x 900) waiting up to 30 s for anything. `bypassCSP`: for a test that injects a
 * tool of its own into the page (axe-core), which E3's Content-Security-Policy rightly refuses. */
export async function newTestPage(browser, { bypassCSP = false } = {}) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 }, bypassCSP });
  page.setDefaultTimeout(30_000);
  return page;
}

/** After each failed test of the file, what `currentPage()` showed: a screenshot `failed-<test>.png`, its URL,
 * the editor drafts in localStorage and the page's script errors during the test (so a failure seen
 * once in CI explains itself). Call once at the file's top level. */
export function recordFailures(currentPage) {
  const errors = [];
  const watched = new WeakSet();
  beforeEach(() => {
    const page = currentPage();
    errors.length = 0;
    if (!page || watched.has(page)) return;
    watched.add(page);
    page.on("pageerror", (e) => errors.push(`page error: ${e.message}`));
    page.on("console", (m) => m.type() === "error" && errors.push(`console error: ${m.text().slice(0, 300)}`));
  });
  afterEach(async (t) => {
    const page = currentPage();
    const seen = errors.splice(0);
    if (t.passed || !page || page.isClosed()) return;
    try {
      await screenshot(page, `failed-${t.name.replace(/[^a-z0-9]+/gi, "-").slice(0, 60)}`);
      const drafts = await page.evaluate(() => {
        try {
          return Object.fromEntries(Object.keys(localStorage).filter((k) => k.startsWith("e3.draft."))
            .map((k) => [k, localStorage.getItem(k).slice(0, 400)]));
        } catch (e) {
          return `unreadable: ${e.message}`;
        }
      });
      console.log(`failed at ${page.url()}; drafts: ${JSON.stringify(drafts)}`);
    } catch (e) {
      console.log(`could not record the failure: ${e.message}`);
    }
    for (const line of seen.slice(-20)) console.log(line);
  });
}

/** The whole page, or with `fullPage: false` what the viewport shows (a long page's top). */
export async function screenshot(page, name, { fullPage = true } = {}) {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path, fullPage });
  console.log(`screenshot: ${path}`);
  return path;
}

/** How busy `page`'s main thread is from now until end() (Chromium's Performance metrics): per second of wall time,
 * the ms spent in tasks, of which script, style and layout. Wall time in tasks: a task preempted by other programs
 * counts the time it waited for a core too, so these are upper bounds of the page's own work. */
export async function mainThreadBusy(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const read = async () => Object.fromEntries((await cdp.send("Performance.getMetrics")).metrics.map((m) => [m.name, m.value]));
  const first = await read();
  return {
    async end() {
      const last = await read();
      await cdp.detach();
      const seconds = last.Timestamp - first.Timestamp;
      const per = (name) => ((last[name] - first[name]) * 1000) / seconds; // ms per second
      return { seconds, task: per("TaskDuration"), script: per("ScriptDuration"), style: per("RecalcStyleDuration"),
               layout: per("LayoutDuration") };
    },
  };
}

export const fmtBusy = (b) =>
  `${b.task.toFixed(0)} ms/s in tasks (script ${b.script.toFixed(0)}, style ${b.style.toFixed(0)}, ` +
  `layout ${b.layout.toFixed(0)}) over ${b.seconds.toFixed(1)} s`;

/** The dashboard's node cards updated over `ms` of live data, measured in the page: for each update, heartbeat →
 * DOM (the card's data-updated-at, the heartbeat's ts, to the MutationObserver that sees it) and heartbeat → the
 * frame that paints it (ms); and every frame's start (ms, for frame times). */
export async function measureUpdates(page, ms) {
  return page.evaluate(async (span) => {
    const wall = () => performance.timeOrigin + performance.now();
    const toDom = [];
    const toFrame = [];
    const frames = [];
    let pending = [];
    const observer = new MutationObserver((records) => {
      const now = wall();
      for (const r of records) {
        const ts = Date.parse(r.target.getAttribute("data-updated-at") ?? "");
        if (Number.isFinite(ts)) {
          toDom.push(now - ts);
          pending.push(ts);
        }
      }
    });
    observer.observe(document.querySelector('[data-testid="dash-nodes"]'),
                     { attributes: true, subtree: true, attributeFilter: ["data-updated-at"] });
    await new Promise((done) => {
      const end = performance.now() + span;
      const tick = (t) => {
        frames.push(t);
        // What the DOM held before this frame's callbacks is painted in this frame.
        const now = wall();
        for (const ts of pending) toFrame.push(now - ts);
        pending = [];
        if (t < end) requestAnimationFrame(tick);
        else done();
      };
      requestAnimationFrame(tick);
    });
    observer.disconnect();
    return { toDom, toFrame, frames };
  }, ms);
}

/** Frame times (ms between successive frames) of a measureUpdates() result. */
export const frameTimes = ({ frames }) => frames.slice(1).map((t, i) => t - frames[i]);

/** A JavaScript CPU profile of `page` from now until end(path): written to `path` (.cpuprofile, opens in Chromium's
 * DevTools) and summarised as the `top` functions by self time (ms). */
export async function profileScript(page) {
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Profiler.enable");
  await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
  await cdp.send("Profiler.start");
  return {
    async end(path, top = 15) {
      const { profile } = await cdp.send("Profiler.stop");
      await cdp.detach();
      writeFileSync(path, JSON.stringify(profile));
      console.log(`script profile: ${path}`);
      const self = new Map();
      const dt = new Map(profile.samples.map((id, i) => [i, profile.timeDeltas[i] / 1000]));
      const byId = new Map(profile.nodes.map((n) => [n.id, n]));
      profile.samples.forEach((id, i) => {
        const f = byId.get(id).callFrame;
        const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
        self.set(key, (self.get(key) ?? 0) + dt.get(i));
      });
      return [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
    },
  };
}

/** A profileScript() summary as lines: "  ms  function file:line". */
export const fmtProfile = (top) =>
  `script by self time:\n${top.map(([f, ms]) => `  ${ms.toFixed(0).padStart(6)} ms  ${f}`).join("\n")}`;

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** axe's violations on the page as it is now (WCAG 2.0/2.1 A and AA rules); the page must bypass the CSP
 * (newTestPage's `bypassCSP`), as axe-core (the npm package) is injected as a script tag. */
export async function axeViolations(page) {
  await page.addScriptTag({ content: AXE_SOURCE });
  return page.evaluate(async () => {
    const result = await window.axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] });
    return result.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.slice(0, 5).map((n) => n.target.join(" ")),
    }));
  });
}
