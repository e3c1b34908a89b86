import { describe, expect, it } from "vitest";

import { PRICE_STORAGE_KEY, loadPrice, parsePrice, savePrice } from "./electricity";

describe("parsePrice", () => {
  it("reads dollars per kWh in the usual spellings", () => {
    expect(parsePrice("0.0733")).toEqual({ ok: true, value: 0.0733 });
    expect(parsePrice(" .12 ")).toEqual({ ok: true, value: 0.12 });
    expect(parsePrice("0,12")).toEqual({ ok: true, value: 0.12 });
    expect(parsePrice("$0.10")).toEqual({ ok: true, value: 0.1 });
    expect(parsePrice("0.1 $/kWh")).toEqual({ ok: true, value: 0.1 });
    expect(parsePrice("1e-1")).toEqual({ ok: true, value: 0.1 });
  });

  it("says what is wrong with bad input", () => {
    const message = (text: string) => {
      const check = parsePrice(text);
      return check.ok ? null : check.message;
    };
    expect(message("")).toMatch(/Enter the electricity price/);
    expect(message("abc")).toMatch(/"abc" is not a number/);
    expect(message("0.1.2")).toMatch(/not a number/);
    expect(message("-0.1")).toMatch(/not a number/);
    expect(message("0")).toMatch(/above \$0/);
    expect(message("7.33")).toMatch(/in cents/);
    expect(message("1e999")).toMatch(/too large/);
  });
});

describe("loadPrice / savePrice", () => {
  function memory(initial: Record<string, string> = {}) {
    const data = new Map(Object.entries(initial));
    return {
      getItem: (k: string) => data.get(k) ?? null,
      setItem: (k: string, v: string) => void data.set(k, v),
    };
  }

  it("defaults to the paper's $0.0733/kWh", () => {
    expect(loadPrice(memory())).toBe(0.0733);
    expect(loadPrice(null)).toBe(0.0733);
    expect(loadPrice(memory({ [PRICE_STORAGE_KEY]: "garbage" }))).toBe(0.0733);
  });

  it("round-trips a saved price", () => {
    const storage = memory();
    savePrice(storage, 0.15);
    expect(loadPrice(storage)).toBe(0.15);
  });

  it("survives a storage that throws", () => {
    const broken = {
      getItem: () => {
        throw new Error("denied");
      },
      setItem: () => {
        throw new Error("full");
      },
    };
    expect(loadPrice(broken)).toBe(0.0733);
    expect(() => savePrice(broken, 0.2)).not.toThrow();
  });
});
