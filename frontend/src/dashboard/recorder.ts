// The dashboard's history: from each live view, one sample per node heartbeat (at the heartbeat's time,
// deduplicated by it) and one per message for the applications and the cluster (at the local time the
// message was first seen, deduplicated by the message's identity). Recording twice the same view is a
// no-op, so it may run during render. Each figure keeps `capacity` samples (5 min at 10 messages/s).

import type { LiveView } from "../live/liveState";
import { RingSeries } from "./history";

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
      let h = this.nodes.get(node.id);
      if (!h) {
        h = { lastTs: null, version: 0, queue: this.series(), cpu: this.series(), watts: this.series() };
        this.nodes.set(node.id, h);
      }
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
      let h = this.applications.get(app.deployment_id);
      if (!h) {
        h = {
          version: 0,
          throughput: this.series(),
          avgUs: this.series(),
          p99Us: this.series(),
          joulesPerRequest: this.series(),
        };
        this.applications.set(app.deployment_id, h);
      }
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
}
