// The dashboard's history: from each live view, one sample per node heartbeat (at the heartbeat's time,
// deduplicated by it) and one per message for the applications and the cluster (at the local time the
// message was first seen, deduplicated by the message's identity). Recording twice the same view is a
// no-op, so it may run during render. Each figure keeps `capacity` samples (5 min at 10 messages/s). When the
// dashboard opens, the server's stored 1 s steps of the last minutes go before them (seed).

import type { LiveView } from "../live/liveState";
import { RingSeries } from "./history";
import type { ServerHistory } from "./serverHistory";

type Point = readonly (number | string | null)[];

/** The series (time, figure `at`) of server points: a figure that is no number is a gap. */
const column = (points: readonly Point[], at: number): [number, number | null][] =>
  points.map((p) => [Number(p[0]), typeof p[at] === "number" ? (p[at] as number) : null]);

/** Seeds `series[i]` with the points' figure i + 1; a new version (the sparklines redraw) when any was taken. */
function seedFigures(into: { version: number }, series: readonly RingSeries[], points: readonly Point[]): void {
  const taken = series.map((s, i) => s.seedBefore(column(points, i + 1)));
  if (taken.some((n) => n > 0)) into.version += 1;
}

export const HISTORY_MS = 5 * 60_000;
export const HISTORY_CAPACITY = 3_000;

export interface NodeHistory {
  lastTs: string | null;
  /** Samples recorded so far (a memo key: the sparklines changed). */
  version: number;
  queue: RingSeries;
  cpu: RingSeries;
  watts: RingSeries;
}

export interface ApplicationHistory {
  version: number;
  throughput: RingSeries;
  avgUs: RingSeries;
  p99Us: RingSeries;
  joulesPerRequest: RingSeries;
}

export interface TotalsHistory {
  version: number;
  watts: RingSeries;
  requestsPerJoule: RingSeries;
  throughput: RingSeries;
}

export class LiveRecorder {
  readonly nodes = new Map<string, NodeHistory>();
  readonly applications = new Map<string, ApplicationHistory>();
  readonly totals: TotalsHistory;
  /** Local ms when the latest message was first seen; null before the first. */
  lastMessageAt: number | null = null;
  private lastApplications: unknown = null;

  constructor(readonly capacity = HISTORY_CAPACITY) {
    this.totals = { version: 0, watts: this.series(), requestsPerJoule: this.series(), throughput: this.series() };
  }

  private series(): RingSeries {
    return new RingSeries(this.capacity);
  }

  /** Takes what is new in `view`, seen at local time `now`. */
  record(view: LiveView, now: number): void {
    for (const node of view.nodes) {
      if (node.ts === null) continue;
      const h = this.nodeHistory(node.id);
      if (node.ts === h.lastTs) continue;
      const t = Date.parse(node.ts);
      h.lastTs = node.ts;
      if (!h.queue.push(t, node.queue_len)) continue; // older than what we hold (a late message): ignored
      h.cpu.push(t, node.cpu_util);
      h.watts.push(t, node.power?.watts);
      h.version += 1;
    }

    // The applications array is new with every message (applyMessage), so its identity marks a message.
    if (view.applications === this.lastApplications) return;
    this.lastApplications = view.applications;
    if (this.lastMessageAt === null && view.totals === null) return; // the empty state before any message
    this.lastMessageAt = now;
    if (!view.current) return;
    for (const app of view.applications) {
      const h = this.applicationHistory(app.deployment_id);
      h.throughput.push(now, app.throughput_rps);
      h.avgUs.push(now, app.latency.avg_us);
      h.p99Us.push(now, app.latency.p99_us);
      h.joulesPerRequest.push(now, app.joules_per_request);
      h.version += 1;
    }
    if (view.totals) {
      this.totals.watts.push(now, view.totals.power.watts);
      this.totals.requestsPerJoule.push(now, view.totals.requests_per_joule);
      this.totals.throughput.push(now, view.totals.throughput_rps);
      this.totals.version += 1;
    }
  }

  /** The last minutes read from the server (GET /clusters/{name}/history: the stored 1 s steps), put before what
   * the live messages gave, so that the sparklines show them at once after a reload. J/request is not in it
   * (its attribution is the energy history's, at 10 s steps): that one starts with the live messages. */
  seed(history: ServerHistory): void {
    for (const node of history.nodes) {
      const h = this.nodeHistory(node.node_id);
      seedFigures(h, [h.queue, h.cpu, h.watts], node.points);
    }
    for (const app of history.applications) {
      const h = this.applicationHistory(app.deployment_id);
      seedFigures(h, [h.throughput, h.avgUs, h.p99Us], app.points);
    }
    const t = this.totals;
    seedFigures(t, [t.watts, t.throughput, t.requestsPerJoule], history.totals);
  }

  private nodeHistory(id: string): NodeHistory {
    let h = this.nodes.get(id);
    if (!h) {
      h = { lastTs: null, version: 0, queue: this.series(), cpu: this.series(), watts: this.series() };
      this.nodes.set(id, h);
    }
    return h;
  }

  private applicationHistory(deploymentId: string): ApplicationHistory {
    let h = this.applications.get(deploymentId);
    if (!h) {
      h = {
        version: 0,
        throughput: this.series(),
        avgUs: this.series(),
        p99Us: this.series(),
        joulesPerRequest: this.series(),
      };
      this.applications.set(deploymentId, h);
    }
    return h;
  }
}
