import { describe, expect, it } from "vitest";

import { copyId, copyNodes, pasteClip, shiftedClip } from "./clipboard";
import { addEdge, addNode, EMPTY_DOCUMENT, type DagDocument } from "./dagDocument";
import { validateDag } from "./dagValidation";
import { toSpec } from "./dagDocument";

/** api -> kvs -> ema, keyed "a", "k", "e". */
function chain(): DagDocument {
  let doc = addNode(EMPTY_DOCUMENT, "api_gateway", { x: 0, y: 0 }, "a").doc;
  doc = addNode(doc, "kvs", { x: 200, y: 0 }, "k").doc;
  doc = addNode(doc, "ema", { x: 400, y: 0 }, "e").doc;
  doc = addEdge(doc, "api_gateway", "kvs");
  doc = addEdge(doc, "kvs", "ema");
  return { ...doc, name: "shop" };
}

describe("copy and paste", () => {
  it("copies the selected nodes with only the edges among them", () => {
    const clip = copyNodes(chain(), ["a", "k"])!;
    expect(clip.nodes.map((n) => n.id)).toEqual(["api_gateway", "kvs"]);
    expect(clip.edges).toEqual([[0, 1]]);
    expect(clip.positions).toEqual([{ x: 0, y: 0 }, { x: 200, y: 0 }]);
    expect(copyNodes(chain(), ["nothing"])).toBeNull();
  });

  it("pastes them under new keys and unique ids, with their edge renamed, offset, as a valid DAG", () => {
    const doc = chain();
    const clip = shiftedClip(copyNodes(doc, ["a", "k"])!);
    const pasted = pasteClip(doc, clip, ["a2", "k2"]);
    expect(pasted.nodes.map((n) => [n.key, n.id])).toEqual([
      ["a", "api_gateway"], ["k", "kvs"], ["e", "ema"], ["a2", "api_gateway-2"], ["k2", "kvs-2"],
    ]);
    expect(pasted.edges.slice(2)).toEqual([{ from: "api_gateway-2", to: "kvs-2" }]);
    expect(pasted.positions.a2).toEqual({ x: 40, y: 40 });
    expect(pasted.positions.k2).toEqual({ x: 240, y: 40 });
    expect(validateDag(toSpec(pasted), null)).toEqual([]);
  });

  it("steps each further paste on and never reuses an id", () => {
    const doc = chain();
    const first = shiftedClip(copyNodes(doc, ["k"])!);
    const once = pasteClip(doc, first, ["k2"]);
    const twice = pasteClip(once, shiftedClip(first), ["k3"]);
    expect(twice.nodes.slice(3).map((n) => n.id)).toEqual(["kvs-2", "kvs-3"]);
    expect(twice.positions.k3).toEqual({ x: 280, y: 80 });
  });

  it("numbers a copy from the id without its number", () => {
    expect(copyId("kvs-2", ["kvs", "kvs-2"])).toBe("kvs-3");
    expect(copyId("kvs", ["kvs"])).toBe("kvs-2");
  });
});
