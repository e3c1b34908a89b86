import { describe, expect, it } from "vitest";

import { validateDag, type SpecDocument } from "./dagValidation";
import { cycleLabel, fieldLabel, inPlainWords, plainMessage } from "./errorText";

const EMPTY_APP: SpecDocument = {
  apiVersion: "e3/v1",
  kind: "Application",
  metadata: { name: "", description: "" },
  spec: { nodes: [{ id: "Bad", service: "kvs", shards: 1, replicas: 1, constraints: { platform: "any" }, request_bytes: 512 }], edges: [] },
};

describe("cycleLabel", () => {
  it("names the loop once, back to its start", () => {
    expect(cycleLabel(["a", "b", "c"])).toBe("cycle: a → b → c → a");
  });
  it("shortens a long loop", () => {
    const loop = ["a", "b", "c", "d", "e", "f", "g", "h"];
    expect(cycleLabel(loop)).toBe("cycle of 8 nodes: a → b → c → … → a");
  });
});

describe("plainMessage", () => {
  it("never shows a regular expression: an empty name is required, a bad one is described", () => {
    const [name, id] = inPlainWords(validateDag(EMPTY_APP, null));
    expect(name!.field).toBe("metadata.name");
    expect(name!.message).toBe("is required: 1-63 lowercase letters, digits or '-', starting and ending with a letter or digit");
    expect(id!.message).toBe("'Bad' is not valid: 1-63 characters: a lowercase letter, then lowercase letters, digits, '_' or '-'");
    for (const e of inPlainWords(validateDag(EMPTY_APP, null))) expect(e.message).not.toMatch(/pattern|\^|\$/);
  });
  it("rewrites the server's bare pattern messages and pydantic's", () => {
    expect(plainMessage({ message: "must match ^[a-z]+$" })).toBe("contains characters that are not allowed here");
    expect(plainMessage({ message: "String should match pattern '^[a-z]+$'" })).toBe("contains characters that are not allowed here");
  });
  it("leaves other messages, and their fields, codes and details, as they are", () => {
    const cycle = { field: "spec.edges", message: "cycle: a -> b -> a; an application must be acyclic", code: "cycle", cycle: ["a", "b"] };
    const [same] = inPlainWords([cycle]);
    expect(same).toBe(cycle);
  });
});

describe("fieldLabel", () => {
  const ids = ["api", "kvs"];
  const edges = [{ from: "api", to: "kvs" }];
  it("names fields as a person sees them", () => {
    expect(fieldLabel("metadata.name", ids, edges)).toBe("Name");
    expect(fieldLabel("spec.nodes[1].shards", ids, edges)).toBe("node kvs: shards");
    expect(fieldLabel("spec.nodes[0].constraints.platform", ids, edges)).toBe("node api: platform");
    expect(fieldLabel("spec.nodes[1]", ["api", ""], edges)).toBe("node #2");
    expect(fieldLabel("spec.edges[0].to", ids, edges)).toBe("edge api → kvs: to");
    expect(fieldLabel("spec.edges[0]", ids, edges)).toBe("edge api → kvs");
    expect(fieldLabel("spec.nodes", ids, edges)).toBe("nodes");
    expect(fieldLabel("metadata.labels.x", ids, edges)).toBe("metadata.labels.x");
  });
});
