// End to end: a node's service configuration in the editor (issue #18, item 2), as a person fills it in
// Debian Chromium against the real backend (`e3 up`, no agents): the form drawn from the service's schema,
// a bad value refused at its field and on the node as it is typed, undo and redo of an edit, the keys a save
// generates shown after a reload, a sql table's columns refused by the browser's own check, and a refusal
// of the server shown at the field it names.
import assert from "node:assert/strict";
import { describe, test } from "node:test";

import { byId, screenshot } from "./browser.mjs";
import { dropService, editorTestRun } from "./editor.mjs";

/** The backend and the one page every test drives; no request is held back as a test starts. */
const run = editorTestRun({ prepare: (page) => page.unrouteAll() });

const form = () => run.page.locator(byId("config-form"));
/** A key's input, found by its label as a person (or a screen reader) finds it. */
const input = (label) => form().getByLabel(label, { exact: true });
const fieldError = (key) => run.page.locator(byId(`config-error-${key}`));
const HEX32 = /^[0-9a-f]{32}$/;

describe("the configuration form", () => {
  test("api_gateway: keys generated when saved, a bad rate refused at its field and on the node, undone, fixed, saved, shown after a reload", async () => {
    const { backend, page } = run;
    await dropService(page, "api_gateway", 300, 250);
    await form().getByText("Configuration").waitFor();
    assert.deepEqual(await form().locator(".config-key").allInnerTexts(), ["keys", "rate", "burst"]);
    assert.equal(await input("keys (required)").inputValue(), "");
    assert.match(await page.locator(byId("config-note-keys")).innerText(), /generated when saved/);
    assert.equal(await input("rate").getAttribute("placeholder"), "default: 100");
    assert.equal(await input("burst").getAttribute("placeholder"), "default: 10");
    assert.match(await form().innerText(), /Tokens a client's bucket regains per second/);
    assert.equal(await form().locator(".field-error").count(), 0);
    await screenshot(page, "config-form-api-gateway");

    await input("rate").fill("-1");
    await fieldError("rate").filter({ hasText: "must be greater than 0, got -1" }).waitFor();
    await page.locator(byId("node-error-api_gateway")).filter({ hasText: "rate: must be greater than 0" }).waitFor();
    assert.equal(await input("rate").getAttribute("aria-invalid"), "true");
    assert.match(await input("rate").getAttribute("aria-describedby"), /-error/);
    await input("rate").fill("abc");
    await fieldError("rate").filter({ hasText: "must be a decimal number such as 0.5 or 1e3, got 'abc'" }).waitFor();
    await page.locator(byId("validation-summary")).filter({ hasText: "node api_gateway: config.rate" }).waitFor();
    await screenshot(page, "config-form-bad-rate");

    // typing in one field is one undo step
    await page.locator(byId("undo")).click();
    assert.equal(await input("rate").inputValue(), "");
    await fieldError("rate").waitFor({ state: "detached" });
    await page.locator(byId("node-error-api_gateway")).waitFor({ state: "detached" });
    await page.locator(byId("redo")).click();
    assert.equal(await input("rate").inputValue(), "abc");
    await fieldError("rate").waitFor();

    await input("rate").fill("250");
    await fieldError("rate").waitFor({ state: "detached" });
    await page.locator(byId("node-error-api_gateway")).waitFor({ state: "detached" });
    await input("rate").press("Tab"); // the keyboard goes from one key to the next
    assert.equal(await page.evaluate(() => document.activeElement?.getAttribute("data-testid")), "config-burst");

    await page.locator(byId("app-name")).fill("gw-config");
    await page.locator(byId("validation-summary")).filter({ hasText: "Valid DAG" }).waitFor();
    await page.locator(byId("save-button")).click();
    await page.locator(byId("deploy-link")).waitFor();
    const stored = await backend.api("/api/v1/applications/gw-config");
    const config = stored.spec.spec.nodes[0].config;
    assert.match(config.keys, HEX32, "the save generated the keys");
    assert.equal(config.rate, "250");
    assert.equal("burst" in config, false, "an optional key left empty is not written");

    await page.reload();
    await page.locator(byId("dag-node-api_gateway")).click();
    assert.equal(await input("keys (required)").inputValue(), config.keys);
    assert.equal(await page.locator(byId("config-note-keys")).count(), 0);
    assert.equal(await input("rate").inputValue(), "250");
    assert.equal(await input("burst").inputValue(), "");
    await screenshot(page, "config-form-saved");
  });

  test("sql: columns filled with their default when saved; bad columns refused at the field by the browser's own check", async () => {
    const { page } = run;
    // no server check answers: what shows is the browser's
    await page.route("**/api/v1/applications/validate", (route) => route.abort());
    await dropService(page, "sql", 300, 250);
    assert.match(await page.locator(byId("config-note-columns")).innerText(), /filled with id:int,value:real when saved/);
    const asked = page.waitForRequest("**/api/v1/applications/validate");
    await input("columns (required)").fill("name:text,id:int");
    const error = fieldError("columns").filter({ hasText: "'name:text,id:int' is not valid: The table's columns" });
    await error.waitFor();
    assert.match(await error.innerText(), /the first column is the primary key and is an int/);
    await page.locator(byId("node-error-sql")).filter({ hasText: "columns: 'name:text,id:int' is not valid" }).waitFor();
    await asked; // the server was asked, and did not answer
    assert.equal(await page.locator(byId("validation-summary")).getAttribute("data-source"), "local");
    assert.equal(await error.count(), 1);
    await screenshot(page, "config-form-sql-refused");

    await input("columns (required)").fill("id:int,name:text");
    await fieldError("columns").waitFor({ state: "detached" });
    await page.locator(byId("node-error-sql")).waitFor({ state: "detached" });
    assert.equal(await page.locator(byId("config-note-columns")).count(), 0);
  });

  test("a save the server refuses for a config key shows the refusal at that key's field", async () => {
    const { page } = run;
    await dropService(page, "kvs", 300, 250);
    await input("max_value").fill("1000");
    await page.locator(byId("app-name")).fill("kv-config");
    await page.locator(byId("validation-summary")).filter({ hasText: "Valid DAG" }).waitFor();
    // what reaches the server is not what the form holds: its answer is the server's own
    await page.route("**/api/v1/applications", (route) => {
      const spec = JSON.parse(route.request().postData());
      spec.spec.nodes[0].config.max_value = "70000";
      return route.continue({ postData: JSON.stringify(spec) });
    });
    await page.locator(byId("save-button")).click();
    await page.locator(byId("save-failed")).waitFor();
    await fieldError("max_value").filter({ hasText: "must be at most 65530, got 70000" }).waitFor();
    await page.locator(byId("node-error-kvs")).filter({ hasText: "max_value: must be at most 65530" }).waitFor();
  });

  test("a service without configuration says so", async () => {
    const { page } = run;
    await dropService(page, "recommend", 300, 250);
    await page.locator(byId("config-none")).filter({ hasText: "This service takes no configuration." }).waitFor();
    assert.equal(await form().locator("input").count(), 0);
  });
});
