import { describe, expect, it } from "vitest";
import {
  SIGNED_OUT_KEY,
  TOKEN_KEY,
  type TokenAction,
  type TokenChoice,
  bearerHeader,
  chooseToken,
  loadChoice,
  loadToken,
  maskToken,
  normalizeToken,
  persistAction,
  saveToken,
  wantsLocalToken,
} from "./token";

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

describe("signing out stays signed out", () => {
  /** A page load in a tab: the choice read from the storages, then the person's actions, each kept as the hook does. */
  function tab(local: ReturnType<typeof memoryStorage>, session: ReturnType<typeof memoryStorage>) {
    let choice: TokenChoice = loadChoice(local, session);
    return {
      get choice() {
        return choice;
      },
      act(action: TokenAction) {
        persistAction(action, local, session);
        choice = chooseToken(choice, action);
      },
    };
  }

  it("takes the local-mode token until the person signs out, and not after a reload either", () => {
    const local = memoryStorage();
    const session = memoryStorage();
    const first = tab(local, session);
    expect(wantsLocalToken(first.choice, 0)).toBe(false); // the API has not answered yet
    expect(wantsLocalToken(first.choice, 1)).toBe(true);
    first.act({ type: "local-token", token: "e3_local" });
    expect(first.choice).toEqual({ token: "e3_local", source: "local", signedOut: false });
    expect(local.data.has(TOKEN_KEY)).toBe(false); // never kept: asked for on each load

    first.act({ type: "signed-out" });
    expect(first.choice).toEqual({ token: null, source: null, signedOut: true });
    expect(wantsLocalToken(first.choice, 2)).toBe(false); // the API coming back does not sign in again
    first.act({ type: "local-token", token: "e3_local" }); // an answer asked for before the sign-out
    expect(first.choice.token).toBeNull();

    const reloaded = tab(local, session);
    expect(reloaded.choice).toEqual({ token: null, source: null, signedOut: true });
    expect(wantsLocalToken(reloaded.choice, 1)).toBe(false);
  });

  it("signs in again as local admin when asked, and forgets the sign-out", () => {
    const local = memoryStorage();
    const session = memoryStorage({ [SIGNED_OUT_KEY]: "1" });
    const t = tab(local, session);
    t.act({ type: "local-asked" });
    expect(wantsLocalToken(t.choice, 1)).toBe(true);
    t.act({ type: "local-token", token: "e3_local" });
    expect(t.choice).toEqual({ token: "e3_local", source: "local", signedOut: false });
    expect(session.data.has(SIGNED_OUT_KEY)).toBe(false);
    expect(tab(local, session).choice.signedOut).toBe(false);
  });

  it("signs in with a pasted token after a sign-out; signing out of it forgets it", () => {
    const local = memoryStorage();
    const session = memoryStorage({ [SIGNED_OUT_KEY]: "1" });
    const t = tab(local, session);
    t.act({ type: "pasted", token: "e3_pasted" });
    expect(t.choice).toEqual({ token: "e3_pasted", source: "stored", signedOut: false });
    expect(tab(local, session).choice).toEqual({ token: "e3_pasted", source: "stored", signedOut: false });
    t.act({ type: "local-token", token: "e3_local" }); // a pasted token wins
    expect(t.choice.token).toBe("e3_pasted");

    t.act({ type: "signed-out" });
    expect(local.data.has(TOKEN_KEY)).toBe(false);
    expect(tab(local, session).choice).toEqual({ token: null, source: null, signedOut: true });
  });

  it("a token pasted in another tab wins over this tab's sign-out", () => {
    const session = memoryStorage({ [SIGNED_OUT_KEY]: "1" });
    expect(loadChoice(memoryStorage({ [TOKEN_KEY]: "e3_other" }), session)).toEqual({ token: "e3_other", source: "stored", signedOut: false });
    expect(loadChoice(memoryStorage(), null).signedOut).toBe(false); // no session storage: as before
  });
});
