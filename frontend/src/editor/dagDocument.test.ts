import { load } from "js-yaml";
import { describe, expect, it } from "vitest";

import {
  addEdge,
  addNode,
  EMPTY_DOCUMENT,
  freshId,
  fromSpec,
  fromStoredDraft,
  isBlank,
  parseIntField,
  parseYaml,
  removeElements,
  shiftedNodes,
  specKey,
  toSpec,
  toStoredDraft,
  toYaml,
  updateNode,
  withStoredConfig,
} from "./dagDocument";
import { initHistory, pushHistory, redoHistory, undoHistory } from "./history";

const IOT_TS = `apiVersion: e3/v1
kind: Application
metadata:
  name: iot-ts
  description: "Thermostat analytics"
spec:
  nodes:
    - {id: api, service: api_gateway, shards: 6, replicas: 1}
    - {id: sql, service: sql, shards: 12, replicas: 1}
    - {id: ema, service: ema, shards: 12, replicas: 1}
  edges:
    - {from: api, to: sql}
    - {from: sql, to: ema}
`;

describe("editing", () => {
  it("names new nodes after their service, then service-2", () => {
    expect(freshId("kvs", [])).toBe("kvs");
    expect(freshId("kvs", ["kvs", "kvs-2"])).toBe("kvs-3");
  });

  it("builds api_gateway -> kvs and renames a node along with its edges", () => {
    let { doc } = addNode(EMPTY_DOCUMENT, "api_gateway", { x: 0, y: 0 });
    const added = addNode(doc, "kvs", { x: 200, y: 0 });
    doc = addEdge(added.doc, "api_gateway", "kvs");
    doc = updateNode(doc, added.key, { id: "cache" });
    expect(doc.nodes.map((n) => n.id)).toEqual(["api_gateway", "cache"]);
    expect(doc.edges).toEqual([{ from: "api_gateway", to: "cache" }]);
    doc = removeElements(doc, [added.key], []);
    expect(doc.edges).toEqual([]);
  });

  it("adds a node under a key made beforehand, so the caller can select it", () => {
    const { doc, key } = addNode(EMPTY_DOCUMENT, "kvs", { x: 5, y: 6 }, "k1");
    expect(key).toBe("k1");
    expect(doc.nodes[0]!.key).toBe("k1");
    expect(doc.positions.k1).toEqual({ x: 5, y: 6 });
  });

  it("moves only the given nodes by a step (the arrow keys)", () => {
    const a = addNode(EMPTY_DOCUMENT, "kvs", { x: 0, y: 0 }, "a");
    const b = addNode(a.doc, "ema", { x: 100, y: 50 }, "b");
    const moved = shiftedNodes(b.doc, ["b", "gone"], { x: 10, y: -50 });
    expect(moved.positions).toEqual({ a: { x: 0, y: 0 }, b: { x: 110, y: 0 } });
    expect(specKey(moved)).toBe(specKey(b.doc));
  });

  it("calls only a document nothing was typed or added to blank", () => {
    expect(isBlank(EMPTY_DOCUMENT)).toBe(true);
    expect(isBlank({ ...EMPTY_DOCUMENT, name: "s" })).toBe(false);
    expect(isBlank(addNode(EMPTY_DOCUMENT, "kvs", { x: 0, y: 0 }).doc)).toBe(false);
  });

  it("keeps what was typed into an integer field when it is not a number", () => {
    expect(parseIntField("12")).toBe(12);
    expect(parseIntField("1.5")).toBe("1.5");
    expect(parseIntField("")).toBe("");
  });

  it("does not change the spec key when a node only moves", () => {
    const { doc, key } = addNode(EMPTY_DOCUMENT, "kvs", { x: 0, y: 0 });
    const moved = { ...doc, positions: { [key]: { x: 50, y: 50 } } };
    expect(specKey(moved)).toBe(specKey(doc));
  });
});

describe("YAML", () => {
  it("imports a template, lays it out, and exports the same spec without anchors", () => {
    const doc = parseYaml(IOT_TS);
    expect(doc.nodes.map((n) => n.id)).toEqual(["api", "sql", "ema"]);
    expect(doc.nodes[0]!.request_bytes).toBe(512);
    const x = doc.nodes.map((n) => doc.positions[n.key]!.x);
    expect(x[0]).toBeLessThan(x[1]!);
    expect(x[1]).toBeLessThan(x[2]!);
    const yaml = toYaml(doc);
    expect(yaml).not.toMatch(/[&*]id\d/);
    expect(load(yaml)).toEqual(toSpec(doc));
  });

  it("refuses text that is not a spec", () => {
    expect(() => parseYaml("a: [")).toThrow(/not valid YAML/);
    expect(() => parseYaml("just text")).toThrow(/not a DAG spec/);
  });

  it("restores a draft with its positions", () => {
    const doc = parseYaml(IOT_TS);
    const back = fromStoredDraft(toStoredDraft(doc, "new", null));
    expect(toSpec(back)).toEqual(toSpec(doc));
    expect(back.positions[back.nodes[1]!.key]).toEqual(doc.positions[doc.nodes[1]!.key]);
  });
});

describe("history", () => {
  it("undoes and redoes snapshots, merging edits with the same tag", () => {
    let h = initHistory(0);
    h = pushHistory(h, 1);
    h = pushHistory(h, 2, "shards");
    h = pushHistory(h, 3, "shards");
    expect(h.past).toEqual([0, 1]);
    h = undoHistory(h);
    expect(h.present).toBe(1);
    h = undoHistory(h);
    expect(h.present).toBe(0);
    h = redoHistory(h);
    expect(h.present).toBe(1);
    h = pushHistory(h, 5);
    expect(h.future).toEqual([]);
    expect(undoHistory(initHistory(7)).present).toBe(7);
  });
});

describe("service config", () => {
  it("survives a round trip through the editor document, and an empty one is not written", () => {
    const spec = {
      apiVersion: "e3/v1",
      kind: "Application",
      metadata: { name: "gw" },
      spec: {
        nodes: [
          { id: "gw", service: "api_gateway", config: { keys: "k1,k2", rate: "500" } },
          { id: "kv", service: "kvs", config: {} },
        ],
        edges: [{ from: "gw", to: "kv" }],
      },
    };
    const nodes = toSpec(fromSpec(spec)).spec.nodes;
    expect(nodes[0]!.config).toEqual({ keys: "k1,k2", rate: "500" });
    expect("config" in nodes[1]!).toBe(false);
  });
});

describe("what a save stored", () => {
  it("takes each node's stored config by id and keeps the document when nothing differs", () => {
    const doc = fromSpec({ metadata: { name: "shop" }, spec: { nodes: [{ id: "gw", service: "api_gateway" }, { id: "kv", service: "kvs" }], edges: [] } });
    const stored = { spec: { nodes: [{ id: "gw", service: "api_gateway", config: { keys: "0123abcd" } }, { id: "kv", service: "kvs" }] } };
    const after = withStoredConfig(doc, stored);
    expect(after.nodes.map((n) => n.config)).toEqual([{ keys: "0123abcd" }, undefined]);
    expect(after.positions).toBe(doc.positions);
    expect(withStoredConfig(after, stored)).toBe(after);
    expect(withStoredConfig(doc, { spec: {} })).toBe(doc);
  });
});
