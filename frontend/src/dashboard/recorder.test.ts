import { describe, expect, it } from "vitest";

import { message, node } from "../live/fixtures";
import { applyMessage, emptyLiveData, liveView } from "../live/liveState";
import type { LiveApplication } from "../live/types";
import { LiveRecorder } from "./recorder";

const app = (patch: Partial<LiveApplication> = {}): LiveApplication => ({
  deployment_id: "d1",
  application: "iot-ts",
  version: 1,
  instances: 4,
  nodes_stale: 0,
  complete: true,
  throughput_rps: 100,
  latency: { avg_us: 300, p99_us: null, p99_is_upper_bound: false, basis: "exec_time_path", exec_path_us: 300 },
  power: { watts: 40, source: "model", sources: ["model"] },
  joules_per_request: 0.4,
  predicted: null,
  ...patch,
});

describe("LiveRecorder", () => {
  it("records one sample per heartbeat, at the heartbeat's time, however often the view is rendered", () => {
    const rec = new LiveRecorder(10);
    let data = applyMessage(emptyLiveData, message("snapshot", 1, [node("a", { ts: "2026-01-01T00:00:00Z" })]), 1000);
    const view1 = liveView(data, "live", 1000);
    rec.record(view1, 1000);
    rec.record(view1, 1100); // a second render of the same view
    rec.record(liveView(data, "live", 1250), 1250); // a tick: same heartbeat
    expect(rec.nodes.get("a")?.version).toBe(1);
    expect(rec.nodes.get("a")?.queue.toArray()).toEqual([[Date.parse("2026-01-01T00:00:00Z"), 3]]);

    data = applyMessage(data, message("update", 2, [node("a", { ts: "2026-01-01T00:00:00.100Z", queue_len: 9 })]), 1100);
    rec.record(liveView(data, "live", 1100), 1100);
    expect(rec.nodes.get("a")?.queue.toArray().map(([, v]) => v)).toEqual([3, 9]);
  });

  it("keeps a node's missing figures as gaps", () => {
    const rec = new LiveRecorder(10);
    const data = applyMessage(
      emptyLiveData,
      message("snapshot", 1, [node("a", { cpu_util: null, power: null, queue_len: null })]),
      0,
    );
    rec.record(liveView(data, "live", 0), 0);
    const h = rec.nodes.get("a");
    expect(Number.isNaN(h?.cpu.toArray()[0]?.[1])).toBe(true);
    expect(Number.isNaN(h?.watts.toArray()[0]?.[1])).toBe(true);
  });

  it("records applications and totals once per message, and nothing while the stream is not current", () => {
    const rec = new LiveRecorder(10);
    rec.record(liveView(emptyLiveData, "connecting", 0), 0);
    expect(rec.lastMessageAt).toBeNull();

    const withApps = (seq: number, throughput: number) => ({
      ...message(seq === 1 ? "snapshot" : "update", seq, [node("a")]),
      applications: [app({ throughput_rps: throughput })],
    });
    let data = applyMessage(emptyLiveData, withApps(1, 100), 1000);
    rec.record(liveView(data, "live", 1000), 1000);
    rec.record(liveView(data, "live", 1250), 1250); // ticks repeat the message: no new sample
    data = applyMessage(data, withApps(2, 120), 1300);
    rec.record(liveView(data, "live", 1300), 1300);
    expect(rec.applications.get("d1")?.throughput.toArray()).toEqual([
      [1000, 100],
      [1300, 120],
    ]);
    expect(rec.totals.version).toBe(2);
    expect(rec.lastMessageAt).toBe(1300);

    // The connection dropped: the view is not current, and the same message is not recorded again.
    rec.record(liveView(data, "reconnecting", 5000), 5000);
    expect(rec.applications.get("d1")?.version).toBe(2);
    expect(rec.lastMessageAt).toBe(1300);
  });

  it("keeps a measured p99 when the channel starts sending one", () => {
    const rec = new LiveRecorder(10);
    const msg = {
      ...message("snapshot", 1, []),
      applications: [app({ latency: { avg_us: 300, p99_us: 900, p99_is_upper_bound: true, basis: "measured_at_entry", exec_path_us: 120 } })],
    };
    rec.record(liveView(applyMessage(emptyLiveData, msg, 0), "live", 0), 0);
    expect(rec.applications.get("d1")?.p99Us.toArray()).toEqual([[0, 900]]);
  });

  it("puts the server's last minutes before the live samples, once, the node's and the application's", () => {
    const rec = new LiveRecorder(10);
    const t = (s: number) => Date.parse("2026-01-01T00:00:00Z") + 1000 * s;
    const data = applyMessage(emptyLiveData, message("snapshot", 1, [node("a", { ts: "2026-01-01T00:00:10Z" })]), t(10));
    rec.record(liveView(data, "live", t(10)), t(10)); // a live message first: the history's answer comes after it
    const history = {
      cluster: "c", since: "2026-01-01T00:00:00Z", minutes: 5, step_s: 1, nodes_left_out: 0,
      nodes: [{ node_id: "a", points: [[t(8), 1, 0.5, 90, "model"], [t(9), 2, null, 91, "model"],
                                        [t(10), 7, 0.7, 95, "model"]] }],
      applications: [{ deployment_id: "d1", application: "iot-ts", points: [[t(9), 100, 300, null]] }],
      totals: [[t(9), 181, 100, 0.55]],
    } as unknown as Parameters<LiveRecorder["seed"]>[0];
    const before = rec.nodes.get("a")!.version;
    rec.seed(history);
    const a = rec.nodes.get("a")!;
    // the steps before the live sample go first; the one at its time is not taken twice
    expect(a.queue.toArray()).toEqual([[t(8), 1], [t(9), 2], [t(10), 3]]);
    expect(Number.isNaN(a.cpu.toArray()[1]?.[1])).toBe(true); // no figure: a gap
    expect(a.version).toBe(before + 1); // the sparklines redraw
    expect(rec.applications.get("d1")?.throughput.toArray()).toEqual([[t(9), 100]]);
    expect(rec.totals.requestsPerJoule.toArray()[0]).toEqual([t(9), 0.55]); // before the live message's
    rec.seed(history); // again: nothing older than what is held, nothing taken
    expect(rec.nodes.get("a")!.queue.length).toBe(3);
  });
});

