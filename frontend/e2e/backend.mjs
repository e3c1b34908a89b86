// Starts the real E3 backend for the end-to-end run: `e3 up` in a fresh data directory on a free
// port (embedded Postgres and Redis, API, worker, the built UI), and stops it with SIGINT.
import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, existsSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const repo = resolve(import.meta.dirname, "../..");
/** The `e3` command the run uses: E3_BIN, else the repository's virtualenv's. */
export const e3Bin = process.env.E3_BIN ?? join(repo, ".venv/bin/e3");

function freePort() {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => ok(port));
    });
    server.on("error", fail);
  });
}

function readEnv(path) {
  return Object.fromEntries(
    readFileSync(path, "utf8").split("\n").filter((l) => l.includes("=") && !l.startsWith("#"))
      .map((l) => [l.slice(0, l.indexOf("=")), l.slice(l.indexOf("=") + 1)]));
}

/** The status of the emulated rack `e3 up` starts as root (E3_CLUSTER_MODE=rack): cluster `rack`. */
const RACK_STATUS = "/run/e3-racks/rack/supervisor.json";
/** The rack's network state: there while its namespaces and bridge exist (`e3 up` removes it as it stops). */
const RACK_NETWORK = "/run/e3-racks/rack/rack.json";

/** True where `e3 up` can run the emulated rack: root, with network namespaces (`ip netns`) working (CI). */
export function rackPossible() {
  return process.getuid?.() === 0 && spawnSync("ip", ["netns", "list"]).status === 0;
}

/** Start `e3 up`; resolves to {url, token, api(path, init), stop()} once the API is ready.
 * With `localServers` > 0 it also starts the local cluster `local` of that many beefy servers, one real
 * e3-agent each on loopback (`--mode local`: no root, no network namespaces), without the demo or its load;
 * With `rackServers` > 0 (root, network namespaces) the emulated rack `rack` of that many type1-smartnic servers
 * instead (an e3-agent per host, an e3-nic per SmartNIC). `clusterAgents()` lists the cluster's programs
 * ({node, pid, ...}). `e3 up` stops them when it stops. With `emulatedBmc` the cluster's first server draws its
 * power from an emulated BMC (E3_EMULATED_BMC, docs/energy.md): its nodes report `ipmi-split`, the others their own. */
export async function startBackend({ localServers = 0, rackServers = 0, emulatedBmc = false } = {}) {
  const dir = mkdtempSync(join(tmpdir(), "e3-e2e-"));
  const port = await freePort();
  // Its own controller port, and no cluster of agents unless asked (never, as root, the emulated rack with
  // its demo under load): the flows below build the clusters they need.
  const env = {
    ...process.env,
    E3_API_PORT: String(port),
    E3_CONTROLLER_PORT: String(await freePort()),
    E3_CLUSTER_MODE: rackServers > 0 ? "rack" : localServers > 0 ? "local" : "none",
    E3_LOCAL_SERVERS: String(localServers),
    E3_RACK_SERVERS: String(Math.max(rackServers, 1)),
    E3_DEMO_RATE: "0",
    E3_DATA_DIR: join(dir, ".e3"),
    // the cluster's first server reads its power from an emulated BMC over IPMI LAN (its nodes: ipmi-split)
    ...(emulatedBmc ? { E3_EMULATED_BMC: "1" } : {}),
  };
  for (const key of ["DATABASE_URL", "REDIS_URL", "E3_URL", "E3_TOKEN"]) delete env[key];
  const proc = spawn(e3Bin, ["up"], { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  let log = "";
  proc.stdout.on("data", (d) => { log += d; });
  proc.stderr.on("data", (d) => { log += d; });
  const deadline = Date.now() + 120_000;
  // The cluster's programs ({node, pid, ...}): the local cluster's agents, or the rack's (its supervisor's status:
  // an e3-nic per SmartNIC node, an e3-agent per host).
  const agentsFile = rackServers > 0 ? RACK_STATUS : join(dir, ".e3", "local-clusters", "local.json");
  const clusterAgents = () => {
    if (!existsSync(agentsFile)) return [];
    const state = JSON.parse(readFileSync(agentsFile, "utf8"));
    return (rackServers > 0 ? state.processes : state.agents).filter((a) => a.pid);
  };
  // An `e3 up` killed before it stopped its rack leaves the rack's namespaces and bridge: `e3 cluster down rack`
  // removes them, once it has exited, if the rack is the one it started (never another `e3 up`'s).
  const takeRackDown = () => {
    const started = log.includes("starting an emulated rack") && !log.includes("no rack:");
    if (rackServers === 0 || !started || !existsSync(RACK_NETWORK)) return;
    const down = spawnSync(e3Bin, ["cluster", "down", "rack"], { env, encoding: "utf8", timeout: 120_000 });
    if (down.status !== 0) console.error(`e3 cluster down rack: exit ${down.status}\n${down.stdout}${down.stderr}`);
  };
  while (!log.includes("E3 is up")) {
    if (proc.exitCode !== null || Date.now() > deadline) {
      const exited = new Promise((r) => (proc.exitCode !== null || proc.signalCode !== null ? r() : proc.once("exit", r)));
      proc.kill("SIGKILL");
      await exited;
      takeRackDown();
      throw new Error(`e3 up did not start:\n${log.slice(-3000)}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  const envFile = join(dir, ".e3", "env");
  if (!existsSync(envFile)) throw new Error(`no ${envFile}`);
  const { E3_URL: url, E3_TOKEN: token } = readEnv(envFile);

  async function api(path, init = {}) {
    const headers = { Authorization: `Bearer ${token}`, ...(init.body ? { "Content-Type": "application/json" } : {}),
                      ...(init.headers ?? {}) };
    const response = await fetch(url + path, { ...init, headers });
    const text = await response.text();
    const body = text ? JSON.parse(text) : null;
    if (!response.ok) throw new Error(`${init.method ?? "GET"} ${path}: ${response.status} ${text.slice(0, 500)}`);
    return body;
  }

  async function waitJob(jobId, timeoutMs = 120_000) {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const job = await api(`/api/v1/jobs/${jobId}`);
      if (job.state === "succeeded" || job.state === "failed") return job;
      if (Date.now() > end) throw new Error(`job ${jobId} still ${job.state}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  if (rackServers > 0 && log.includes("no rack:")) { // another rack is up on the machine: its status is not ours
    await stop();
    throw new Error(`e3 up started no rack:\n${log.slice(-3000)}`);
  }
  const wanted = rackServers > 0 ? 2 * rackServers : localServers; // a type1 server: its host and one SmartNIC
  if (wanted > 0 && clusterAgents().length !== wanted) {
    await stop();
    throw new Error(`e3 up started ${clusterAgents().length} of ${wanted} agents:\n${log.slice(-3000)}`);
  }

  /** SIGINT (it stops its agents, then itself); after 60 s, SIGKILL it and any agent of its still alive; then the
   * rack's network if it is left. */
  async function stop() {
    if (proc.exitCode !== null || proc.signalCode !== null) {
      takeRackDown();
      return;
    }
    const agents = clusterAgents();
    const exited = new Promise((r) => proc.once("exit", r));
    proc.kill("SIGINT");
    let timer;
    const late = new Promise((r) => { timer = setTimeout(() => r("late"), 60_000); timer.unref(); });
    if ((await Promise.race([exited, late])) === "late") {
      proc.kill("SIGKILL");
      for (const a of agents) {
        try { process.kill(a.pid, "SIGKILL"); } catch { /* gone already */ }
      }
      await exited;
    }
    clearTimeout(timer);
    takeRackDown();
  }

  return { url, token, api, waitJob, stop, clusterAgents, log: () => log };
}
