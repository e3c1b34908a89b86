import { describe, expect, it } from "vitest";
import { TOKEN_KEY, bearerHeader, loadToken, maskToken, normalizeToken, saveToken } from "./token";

function memoryStorage(initial: Record<string, string> = {}) {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key: string) => data.get(key) ?? null,
    setItem: (key: string, value: string) => void data.set(key, value),
    removeItem: (key: string) => void data.delete(key),
  };
}

describe("normalizeToken", () => {
  it("trims and drops a pasted 'Bearer ' prefix", () => {
    expect(normalizeToken("  abc.def  ")).toBe("abc.def");
    expect(normalizeToken("Bearer abc.def")).toBe("abc.def");
    expect(normalizeToken("bearer   abc.def\n")).toBe("abc.def");
  });

  it("gives null for an empty token", () => {
    expect(normalizeToken("")).toBeNull();
    expect(normalizeToken("   ")).toBeNull();
    expect(normalizeToken("Bearer ")).toBeNull();
  });
});

describe("token storage", () => {
  it("keeps the token under e3.token", () => {
    const storage = memoryStorage();
    saveToken(storage, "t0k3n");
    expect(storage.data.get(TOKEN_KEY)).toBe("t0k3n");
    expect(TOKEN_KEY).toBe("e3.token");
    expect(loadToken(storage)).toBe("t0k3n");
  });

  it("forgets the token on sign-out", () => {
    const storage = memoryStorage({ [TOKEN_KEY]: "t0k3n" });
    saveToken(storage, null);
    expect(loadToken(storage)).toBeNull();
  });

  it("survives a missing or throwing storage", () => {
    const broken = {
      getItem: () => {
        throw new Error("SecurityError");
      },
      setItem: () => {
        throw new Error("QuotaExceededError");
      },
      removeItem: () => {},
    };
    expect(loadToken(broken)).toBeNull();
    expect(() => saveToken(broken, "t")).not.toThrow();
    expect(loadToken(null)).toBeNull();
  });

  it("ignores a blank stored value", () => {
    expect(loadToken(memoryStorage({ [TOKEN_KEY]: "  " }))).toBeNull();
  });
});

describe("display", () => {
  it("builds the Authorization header", () => {
    expect(bearerHeader("abc")).toBe("Bearer abc");
  });

  it("shows only the ends of a token", () => {
    expect(maskToken("e3_abcdefghijklmnop")).toBe("e3_a…mnop");
    expect(maskToken("short")).toBe("•••••");
  });
});
