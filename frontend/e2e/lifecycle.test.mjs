// End to end: the life cycle in the UI, as a person does it, against the real backend (`e3 up`, no agents):
// create a cluster from the form after reading its size, delete clusters (refused while a deployment runs on one),
// delete application versions (the latest refused), create a token (its secret shown once), revoke it, switch the
// orchestrator's mode; and the audit log holds every destructive action.
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";

import { startBackend } from "./backend.mjs";
import { byId, launch, newTestPage, recordFailures, screenshot } from "./browser.mjs";
import { kvApplication } from "./cluster.mjs";

let backend;
let browser;
let page;
recordFailures(() => page);

const text = async (id) => (await page.locator(byId(id)).innerText()).trim();

/** The API's answer status to `path` with `token` (not the local admin's). */
async function statusWith(token, path) {
  return (await fetch(backend.url + path, { headers: { Authorization: `Bearer ${token}` } })).status;
}

/** The audit entries of `action`, newest first. */
async function audited(action) {
  return (await backend.api(`/api/v1/audit?action=${encodeURIComponent(action)}&limit=100`)).items;
}

before(async () => {
  backend = await startBackend();
  browser = await launch();
  page = await newTestPage(browser);
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: backend.url });
  // A cluster with a deployment on it, of an application with two versions (the deployment runs the latest).
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 2, server_type: "type1-smartnic", name: "busy" }),
  });
  const app = kvApplication("shop");
  await backend.api("/api/v1/applications", { method: "POST", body: JSON.stringify(app) });
  app.spec.nodes[1].replicas = 0;
  await backend.api("/api/v1/applications/shop", { method: "PUT", body: JSON.stringify(app) });
  const started = await backend.api("/api/v1/deployments", {
    method: "POST",
    body: JSON.stringify({ application: "shop", cluster: "busy" }),
  });
  const job = await backend.waitJob(started.job_id);
  assert.equal(job.state, "succeeded", JSON.stringify(job));
});

after(async () => {
  await browser?.close();
  await backend?.stop();
});

describe("the life cycle in the UI", () => {
  test("creates a cluster from the generator's fields, reading its size first; a bad name is refused at its field", async () => {
    await page.goto(`${backend.url}/#/clusters`);
    await page.locator(byId("row-clusters-busy")).waitFor();
    await page.locator(byId("new-cluster")).click();
    await page.locator(byId("cluster-servers")).fill("50");
    await page.locator(byId("cluster-server-type")).selectOption("type2-smartnic");
    await page.locator(byId("cluster-per-rack")).fill("20");
    await page.locator(byId("cluster-preview")).waitFor();
    // 50 servers, 20 to a rack: 3 racks; a type2-smartnic server is a host and 4 SmartNICs.
    assert.equal(await text("preview-racks"), "3");
    assert.equal(await text("preview-servers"), "50");
    assert.equal(await text("preview-nodes"), "250");
    assert.equal(await text("preview-hosts"), "50");
    assert.equal(await text("preview-smartnics"), "200");

    await page.locator(byId("cluster-name")).fill("Lab 1");
    await page.locator(byId("create-cluster")).click();
    const nameError = page.locator(byId("error-name"));
    await nameError.waitFor();
    assert.match(await nameError.innerText(), /pattern|must/i); // the API's own words, at the name
    await page.locator(byId("create-refusal")).waitFor();
    await screenshot(page, "lifecycle-cluster-refused-name");
    assert.equal(await page.locator(byId("row-clusters-Lab 1")).count(), 0);

    await page.locator(byId("cluster-name")).fill("lab");
    await page.locator(byId("create-cluster")).click();
    await page.locator(byId("clusters-notice")).filter({ hasText: "Created cluster lab" }).waitFor();
    assert.equal(
      await text("clusters-notice"),
      "Created cluster lab: 50 servers in 3 racks: 250 computing nodes (50 hosts, 200 SmartNICs).",
    );
    const row = page.locator(byId("row-clusters-lab"));
    await row.waitFor();
    assert.match(await row.innerText(), /\b3\s+50\s+250\b/); // racks, servers, computing nodes as the list has them
    await screenshot(page, "lifecycle-cluster-created");
  });

  test("creates a cluster from a pasted spec, with its size read from the spec", async () => {
    await page.locator(byId("new-cluster")).click();
    await page.locator(byId("cluster-mode-spec")).check();
    await page.locator(byId("cluster-spec")).fill(
      "apiVersion: e3/v1\nkind: Cluster\nmetadata: {name: pasted}\nspec:\n  racks:\n" +
        "    - servers: [{type: type1-smartnic, count: 2}]\n    - servers: [{type: beefy}]\n",
    );
    await page.locator(byId("cluster-preview")).waitFor();
    assert.equal(await text("preview-racks"), "2");
    assert.equal(await text("preview-servers"), "3");
    assert.equal(await text("preview-nodes"), "5");
    await page.locator(byId("create-cluster")).click();
    await page.locator(byId("row-clusters-pasted")).waitFor();
  });

  test("refuses to delete a cluster with a deployment, in the API's words, and keeps it", async () => {
    await page.locator(byId("delete-cluster-busy")).click();
    const dialog = page.locator(byId("confirm-dialog"));
    await dialog.waitFor();
    assert.match(
      await text("confirm-what"),
      /deletes the cluster busy and its 2 servers in 1 rack: 4 computing nodes \(2 hosts, 2 SmartNICs\)/,
    );
    await page.locator(byId("confirm-button")).click();
    const refusal = page.locator(byId("confirm-refusal"));
    await refusal.waitFor();
    assert.equal(await refusal.innerText(), "cluster 'busy' has 1 deployment(s); delete them first");
    await screenshot(page, "lifecycle-cluster-delete-refused");
    await page.locator(byId("confirm-cancel")).click();
    await dialog.waitFor({ state: "detached" });
    await page.reload();
    await page.locator(byId("row-clusters-busy")).waitFor();
    assert.equal((await backend.api("/api/v1/clusters/busy")).name, "busy");
  });

  test("deletes an empty cluster after naming what goes", async () => {
    await page.locator(byId("delete-cluster-lab")).click();
    assert.match(await text("confirm-what"), /the cluster lab and its 50 servers in 3 racks: 250 computing nodes/);
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("confirm-dialog")).waitFor({ state: "detached" });
    await page.locator(byId("row-clusters-lab")).waitFor({ state: "detached" });
    assert.match(await text("clusters-notice"), /^Deleted cluster lab and its 50 servers/);
    await page.reload();
    await page.locator(byId("row-clusters-busy")).waitFor();
    assert.equal(await page.locator(byId("row-clusters-lab")).count(), 0);
  });

  test("deletes an older application version; the latest and an application in use are refused", async () => {
    await page.goto(`${backend.url}/#/applications/shop`);
    await page.locator(byId("row-versions-1")).waitFor();
    await page.locator(byId("delete-version-1")).click();
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("row-versions-1")).waitFor({ state: "detached" });
    assert.equal(await text("versions-notice"), "Deleted version 1 of shop.");

    await page.locator(byId("delete-version-2")).click();
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("confirm-refusal")).waitFor();
    assert.equal(
      await text("confirm-refusal"),
      "version 2 is the latest of application 'shop': save a new version first, or delete the application",
    );
    await screenshot(page, "lifecycle-version-latest-refused");
    await page.locator(byId("confirm-cancel")).click();
    assert.equal(await page.locator(byId("row-versions-2")).count(), 1);

    await page.locator(byId("delete-application")).click();
    await page.locator(byId("confirm-what")).filter({ hasText: "deletes the application shop and its version 2." }).waitFor();
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("confirm-refusal")).filter({ hasText: "application 'shop' has 1 deployment(s); delete them first" }).waitFor();
    await page.locator(byId("confirm-cancel")).click();
  });

  test("deletes an unused application from the list, naming its versions", async () => {
    const app = kvApplication("scratch");
    await backend.api("/api/v1/applications", { method: "POST", body: JSON.stringify(app) });
    app.spec.nodes[0].shards = 2;
    await backend.api("/api/v1/applications/scratch", { method: "PUT", body: JSON.stringify(app) });
    await page.goto(`${backend.url}/#/applications`);
    await page.locator(byId("delete-application-scratch")).click();
    await page.locator(byId("confirm-what")).filter({ hasText: "2 versions (2, 1)" }).waitFor();
    await page.locator(byId("confirm-button")).click();
    await page.locator(byId("row-applications-scratch")).waitFor({ state: "detached" });
    await page.locator(byId("row-applications-shop")).waitFor();
  });

  test("creates a token with scopes, shows its secret once, lists it, and revokes it", async () => {
    await page.goto(`${backend.url}/#/`);
    await page.locator(byId("nav-admin")).click();
    await page.waitForURL(/#\/admin$/);
    await page.locator(byId("new-token")).click();
    await page.locator(byId("token-name")).fill("ci-e2e");
    await page.locator(byId("token-scope-read")).uncheck();
    await page.locator(byId("token-scope-write")).check();
    await page.locator(byId("token-scope-deploy")).check();
    await page.locator(byId("token-expiry")).fill("30");
    await page.locator(byId("create-token")).click();

    const secret = await text("token-secret");
    assert.match(secret, /^e3_\S{20,}$/);
    assert.match(await text("token-secret-panel"), /you will not see it again/);
    await page.locator(byId("copy-secret")).click();
    await page.locator(byId("copy-secret")).filter({ hasText: "Copied" }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    await screenshot(page, "lifecycle-token-secret");
    assert.equal(await statusWith(secret, "/api/v1/me"), 200); // the secret shown is the token's

    const state = page.locator(byId("token-state-ci-e2e"));
    await state.waitFor();
    assert.equal(await state.innerText(), "active");
    // The scopes as granted (deploy and write each imply read, which was left unticked).
    assert.match(await page.locator(byId("list-tokens")).innerText(), /ci-e2e\s+e3_\S+…\s+write, deploy\s/);
    await page.locator(byId("secret-done")).click();
    assert.equal(await page.locator(byId("token-secret")).count(), 0);
    await page.reload();
    await state.waitFor();
    assert.equal((await page.content()).includes(secret), false); // never shown again

    await page.locator(byId("revoke-token-ci-e2e")).click();
    assert.match(await text("confirm-what"), /The token ci-e2e \(e3_\S+…, write, deploy\) stops working at once/);
    await page.locator(byId("confirm-button")).click();
    await state.filter({ hasText: /^revoked \d{4}-/ }).waitFor();
    assert.equal(await page.locator(byId("revoke-token-ci-e2e")).count(), 0);
    await screenshot(page, "lifecycle-token-revoked");
    assert.equal(await statusWith(secret, "/api/v1/me"), 401);
  });

  test("switches the orchestrator's mode and reads it back after a reload", async () => {
    const current = page.locator(byId("orchestrator-current"));
    await current.waitFor();
    const before = (await backend.api("/api/v1/orchestrator")).mode;
    const next = before === "observe" ? "off" : "observe";
    assert.match(await current.innerText(), new RegExp(`In force: ${before}`));
    // The switch moves when the API has said yes, not on the click.
    await page.locator(byId(`orchestrator-mode-${next}`)).click();
    await current.filter({ hasText: `In force: ${next} (set through the API)` }).waitFor();
    await page.reload();
    await current.filter({ hasText: `In force: ${next} (set through the API)` }).waitFor();
    assert.equal(await page.locator(byId(`orchestrator-mode-${next}`)).isChecked(), true);
    assert.equal((await backend.api("/api/v1/orchestrator")).mode, next);
    await screenshot(page, "lifecycle-admin");
  });

  test("recorded every destructive action in the audit log, and no refused one", async () => {
    const deletes = (await audited("cluster.delete")).map((e) => e.target);
    assert.deepEqual(deletes, ["cluster/lab"]); // busy's refused delete is not an action taken
    const created = (await audited("cluster.create")).map((e) => e.target);
    assert.ok(created.includes("cluster/lab") && created.includes("cluster/pasted"), created.join(", "));
    const versions = await audited("application.delete_version");
    assert.deepEqual(versions.map((e) => [e.target, e.detail.version]), [["application/shop", 1]]);
    assert.deepEqual((await audited("application.delete")).map((e) => e.target), ["application/scratch"]);
    const revoked = await audited("token.revoke");
    assert.deepEqual(revoked.map((e) => e.detail.name), ["ci-e2e"]);
    assert.equal(revoked[0].token_name, "local-admin");
    const modes = await audited("orchestrator.mode");
    assert.equal(modes.length, 1);
    assert.equal(modes[0].detail.mode, (await backend.api("/api/v1/orchestrator")).mode);
  });
});
