import { describe, expect, it } from "vitest";
import { buildLookup, toEntry } from "../timeline/entries";
import { lookupSourceOf } from "./deploymentEvents";

const ev = (id: number, kind: string, subject: string, ts: string, data: Record<string, unknown> = {}) =>
  ({ id, kind, subject, ts, data, cluster_id: "c", application: "shop" });

describe("a deployment's events", () => {
  it("names its instances and nodes in the entries", () => {
    const source = lookupSourceOf("shop", "d1", [
      { id: "i1", node_id: "n1", node: "s0/host", dag_node: "gw", shard: 0, replica: 0, service: "api_gateway", role: "primary",
        node_kind: "host", server: "s0", rack: "r0", state: "failed", error: { code: "bad_config", message: "needs keys" } },
    ]);
    const entry = toEntry(ev(4, "command.nack", "node/n1", "2026-11-26T09:10:01Z",
      { command: "deploy_instance", instance_id: "i1", error_code: "bad_config", error_message: "needs keys" }), buildLookup(source));
    expect(entry.text).toBe("Agent on s0/host refused deploy instance of gw shard 0 primary: bad_config: needs keys");
  });
});
