// Debian's Chromium driven by playwright-core (never a downloaded browser), and screenshots
// saved under frontend/test-results/ with their paths printed.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium } from "playwright-core";

export const resultsDir = resolve(import.meta.dirname, "../test-results");
const FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
               "--disable-background-networking", "--disable-component-update", "--disable-sync"];

export async function launch() {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: FLAGS });
}

/** A test id's CSS selector. */
export const byId = (id) => `[data-testid="${id}"]`;

/** A page of the e2e size (1400 x 900) waiting up to 30 s for anything. */
export async function newTestPage(browser) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  page.setDefaultTimeout(30_000);
  return page;
}

export async function screenshot(page, name) {
  mkdirSync(resultsDir, { recursive: true });
  const path = join(resultsDir, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  console.log(`screenshot: ${path}`);
  return path;
}
