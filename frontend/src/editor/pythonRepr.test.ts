import { describe, expect, it } from "vitest";

import { pyStrRepr, reprlibRepr } from "./pythonRepr";

describe("Python's repr of a str", () => {
  it("quotes and escapes as Python does", () => {
    expect(pyStrRepr("abc")).toBe("'abc'");
    expect(pyStrRepr("it's")).toBe('"it\'s"');
    expect(pyStrRepr("a\tb\\")).toBe("'a\\tb\\\\'");
  });

  it("shortens past 30 characters as reprlib does (Python: reprlib.repr('x' * 80), reprlib.repr('0123456789' * 4))", () => {
    expect(reprlibRepr("x".repeat(28))).toBe(`'${"x".repeat(28)}'`);
    expect(reprlibRepr("x".repeat(80))).toBe("'xxxxxxxxxxxx...xxxxxxxxxxxxx'");
    expect(reprlibRepr("0123456789".repeat(4))).toBe("'012345678901...7890123456789'");
  });
});
