// Helpers for end-to-end runs against a cluster of real agents: a stateful application placed and running,
// a steady load from e3-loadgen, polling, and the figures printed (never asserted: the machine is noisy).
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join, resolve } from "node:path";

import { rackPossible } from "./backend.mjs";

const repo = resolve(import.meta.dirname, "../..");
const loadgenBin = process.env.E3_LOADGEN_BIN ?? join(repo, "build/agents/e3-loadgen/e3-loadgen");

export const KEY = "e2e-key";

/** Whether a run uses `e3 up`'s emulated rack (where it can run: root, `ip netns` working, as in CI) rather than its
 * local cluster; E3_E2E_CLUSTER=rack|local chooses (rack where it cannot run is an error). */
export function useRack() {
  const wanted = process.env.E3_E2E_CLUSTER ?? "";
  if (!["", "rack", "local"].includes(wanted)) throw new Error(`E3_E2E_CLUSTER="${wanted}": rack or local`);
  if (wanted === "local") return false;
  const possible = rackPossible();
  if (wanted === "rack" && !possible) throw new Error("E3_E2E_CLUSTER=rack needs root and network namespaces");
  return possible;
}

/** api_gateway → kvs with one backup (the integration tests' trio application), named `name`; `platforms` may pin
 * each ({gw: "host", kv: "smartnic"}). */
export function kvApplication(name, platforms = {}) {
  const on = (id) => (platforms[id] ? { constraints: { platform: platforms[id] } } : {});
  return {
    apiVersion: "e3/v1",
    kind: "Application",
    metadata: { name },
    spec: {
      nodes: [
        { id: "gw", service: "api_gateway", replicas: 0, config: { keys: KEY, rate: "1000000", burst: "1000000" }, ...on("gw") },
        { id: "kv", service: "kvs", replicas: 1, ...on("kv") },
      ],
      edges: [{ from: "gw", to: "kv" }],
    },
  };
}

/** `fn()` until it returns something truthy (returned), or throws after `timeoutMs` naming `what`. */
export async function waitFor(fn, what, timeoutMs = 30_000, everyMs = 200) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** The deployment's instances by "gw", "kv", "kv-backup" once all run; null while some do not. */
export async function running(backend, deploymentId) {
  const { items } = await backend.api(`/api/v1/deployments/${deploymentId}/placement?limit=500`);
  const failed = items.filter((i) => i.state === "failed");
  if (failed.length) throw new Error(`instances failed: ${JSON.stringify(failed)}`);
  if (!items.every((i) => i.state === "running")) return null;
  return Object.fromEntries(items.map((i) => [i.role === "primary" ? i.dag_node : `${i.dag_node}-backup`, i]));
}

/** Create the application and deploy it on `cluster` (HCM); resolves to {deploymentId, placed} once it runs. */
export async function deployKv(backend, cluster, name, platforms = {}) {
  await backend.api("/api/v1/applications", { method: "POST", body: JSON.stringify(kvApplication(name, platforms)) });
  const started = await backend.api("/api/v1/deployments", {
    method: "POST", body: JSON.stringify({ application: name, cluster }),
  });
  const job = await backend.waitJob(started.job_id);
  if (job.state !== "succeeded") throw new Error(`placing ${name} failed: ${JSON.stringify(job)}`);
  const placed = await waitFor(() => running(backend, started.deployment_id), "the instances running", 60_000);
  return { deploymentId: started.deployment_id, placed };
}

/** e3-loadgen sending `payload` to `instance`: open loop at `rate` requests/s, or closed loop with `connections`
 * requests always outstanding; for at most `seconds` (so that it ends on its own should this run die). stop()
 * ends it sooner; it never keeps node alive. */
export function startLoad(instance, payload, { rate = 1000, connections = 0, seconds = 240 } = {}) {
  if (!existsSync(loadgenBin)) throw new Error(`${loadgenBin} is missing: run make agents`);
  const mode = connections > 0 ? ["--mode", "closed", "--connections", String(connections)] : ["--mode", "open", "--rate", String(rate)];
  const proc = spawn(loadgenBin, ["--target", `${instance.address}:${instance.port}`, ...mode, "--duration", String(seconds),
                                  "--warmup", "0", "--payload", payload], { stdio: "ignore" });
  proc.unref();
  return {
    stop() {
      if (proc.exitCode === null && proc.signalCode === null) proc.kill("SIGTERM");
    },
  };
}

/** n, mean, p50, p99 and max of `xs` (ms). */
export function stats(xs) {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  return { n: s.length, mean: s.reduce((a, b) => a + b, 0) / Math.max(1, s.length), p50: q(0.5), p99: q(0.99), max: s[s.length - 1] };
}

export const fmt = (s) =>
  s.n ? `p50 ${s.p50.toFixed(1)} ms, p99 ${s.p99.toFixed(1)} ms, max ${s.max.toFixed(1)} ms (mean ${s.mean.toFixed(1)}) over ${s.n}` : "no samples";


/** The fattree cluster `rack1` (3 type1-smartnic servers, no agents) and the IOT-TS template as an application. */
export async function rack1WithIotTs(backend) {
  await backend.api("/api/v1/clusters", {
    method: "POST",
    body: JSON.stringify({ generator: "fattree", servers: 3, server_type: "type1-smartnic", name: "rack1" }),
  });
  await backend.api("/api/v1/templates/iot-ts/instantiate", { method: "POST", body: "{}" });
}
