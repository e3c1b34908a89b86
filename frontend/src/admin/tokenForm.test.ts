import { describe, expect, it } from "vitest";
import { tokenBody, tokenFieldOf, tokenState } from "./tokenForm";

describe("tokenBody", () => {
  it("sends the name, the scopes in their fixed order, and the expiry or null for never", () => {
    expect(tokenBody({ name: " ci ", scopes: ["deploy", "read"], expiresInDays: "30" })).toEqual({
      ok: true,
      body: { name: "ci", scopes: ["read", "deploy"], expires_in_days: 30 },
    });
    expect(tokenBody({ name: "ci", scopes: ["admin"], expiresInDays: "" })).toEqual({
      ok: true,
      body: { name: "ci", scopes: ["admin"], expires_in_days: null },
    });
  });

  it("says what is missing before asking the API", () => {
    expect(tokenBody({ name: "", scopes: [], expiresInDays: "0" })).toEqual({
      ok: false,
      errors: {
        name: ["give the token a name (who or what will use it)"],
        scopes: ["pick at least one scope"],
        expires_in_days: ["a whole number of days from 1 to 3650, or blank for never"],
      },
    });
    expect(tokenBody({ name: "x", scopes: ["read"], expiresInDays: "1.5" }).ok).toBe(false);
  });
});

describe("tokenFieldOf", () => {
  it("shows the API's field errors at their field", () => {
    expect(tokenFieldOf("name")).toBe("name");
    expect(tokenFieldOf("scopes")).toBe("scopes");
    expect(tokenFieldOf("scopes[1]")).toBe("scopes");
    expect(tokenFieldOf("expires_in_days")).toBe("expires_in_days");
    expect(tokenFieldOf("other")).toBeNull();
  });
});

describe("tokenState", () => {
  const now = new Date("2026-05-01T12:00:00Z");
  it("tells active, revoked and expired tokens apart", () => {
    expect(tokenState({ revoked_at: null, expires_at: null }, now)).toEqual({ state: "active", label: "active" });
    expect(tokenState({ revoked_at: null, expires_at: "2026-06-01T00:00:00Z" }, now).state).toBe("active");
    expect(tokenState({ revoked_at: null, expires_at: "2026-04-01T00:00:00Z" }, now).state).toBe("expired");
    const revoked = tokenState({ revoked_at: "2026-04-30T10:00:00Z", expires_at: "2026-04-01T00:00:00Z" }, now);
    expect(revoked.state).toBe("revoked");
    expect(revoked.label).toMatch(/^revoked 2026-04-30 /);
  });
});
