import { describe, expect, it } from "vitest";

import { SseParser } from "./sse";

describe("SseParser", () => {
  it("assembles events split across chunks and skips comments", () => {
    const p = new SseParser();
    expect(p.push(': keep-alive\n\nevent: snap')).toEqual([]);
    expect(p.push('shot\ndata: {"a":1}\n')).toEqual([]);
    expect(p.push("\nevent: update\r\ndata: x\r\ndata: y\r\n\r\n")).toEqual([
      { event: "snapshot", data: '{"a":1}' },
      { event: "update", data: "x\ny" },
    ]);
  });
});
