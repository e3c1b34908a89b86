import { describe, expect, it } from "vitest";
import { formatScopes, hasScope, parseMe } from "./scopes";

describe("hasScope", () => {
  it("lets a read token read only", () => {
    expect(hasScope(["read"], "read")).toBe(true);
    expect(hasScope(["read"], "write")).toBe(false);
    expect(hasScope(["read"], "deploy")).toBe(false);
  });

  it("keeps write and deploy apart", () => {
    expect(hasScope(["read", "write"], "deploy")).toBe(false);
    expect(hasScope(["read", "deploy"], "write")).toBe(false);
  });

  it("counts read as part of write and deploy", () => {
    expect(hasScope(["write"], "read")).toBe(true);
    expect(hasScope(["deploy"], "read")).toBe(true);
  });

  it("lets admin do everything", () => {
    for (const scope of ["read", "write", "deploy", "admin"] as const) expect(hasScope(["admin"], scope)).toBe(true);
  });

  it("grants nothing without scopes", () => {
    expect(hasScope([], "read")).toBe(false);
  });
});

describe("parseMe", () => {
  it("reads name and scopes", () => {
    expect(parseMe({ token_id: null, name: "local-admin", scopes: ["read", "write", "deploy", "admin"] })).toEqual({
      name: "local-admin",
      scopes: ["read", "write", "deploy", "admin"],
    });
  });

  it("drops non-string scopes and names an unnamed token", () => {
    expect(parseMe({ name: "", scopes: ["read", 3, null] })).toEqual({ name: "unnamed token", scopes: ["read"] });
    expect(parseMe({})).toEqual({ name: "unnamed token", scopes: [] });
  });

  it("rejects anything but an object", () => {
    expect(parseMe(null)).toBeNull();
    expect(parseMe(["read"])).toBeNull();
  });
});

describe("formatScopes", () => {
  it("lists known scopes in a fixed order, unknown ones last", () => {
    expect(formatScopes(["deploy", "zeta", "read"])).toBe("read, deploy, zeta");
    expect(formatScopes([])).toBe("no scopes");
  });
});
