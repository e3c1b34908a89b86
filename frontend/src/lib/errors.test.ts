import { describe, expect, it } from "vitest";
import { ApiError, NetworkError, describeError, fieldMessages, parseErrorBody, splitRefusal } from "./errors";
import type { Refusal } from "./errors";

describe("parseErrorBody", () => {
  it("keeps the API's own {code, message, errors} body", () => {
    const body = parseErrorBody(
      401,
      JSON.stringify({ code: "unauthorized", message: "Token expired", errors: [] }),
    );
    expect(body).toEqual({ code: "unauthorized", message: "Token expired", errors: [] });
  });

  it("keeps field errors, filling in what is missing", () => {
    const body = parseErrorBody(
      422,
      JSON.stringify({
        code: "validation_failed",
        message: "Invalid DAG",
        errors: [{ field: "spec.nodes[2].service", message: "unknown service", code: "unknown" }, { message: "x" }, 7],
      }),
    );
    expect(body.errors).toEqual([
      { field: "spec.nodes[2].service", message: "unknown service", code: "unknown" },
      { field: "", message: "x", code: "invalid" },
    ]);
  });

  it("keeps the details a field error carries (a cycle's node ids)", () => {
    const body = parseErrorBody(
      422,
      JSON.stringify({
        code: "validation_failed",
        message: "Invalid DAG",
        errors: [{ field: "spec.edges", message: "cycle: a -> b -> a", code: "cycle", cycle: ["a", "b"] }],
      }),
    );
    expect(body.errors).toEqual([{ field: "spec.edges", message: "cycle: a -> b -> a", code: "cycle", cycle: ["a", "b"] }]);
  });

  it("reads FastAPI's {detail} string", () => {
    expect(parseErrorBody(404, JSON.stringify({ detail: "Not Found" })).message).toBe("Not Found");
  });

  it("reads FastAPI's validation {detail} list as field errors", () => {
    const body = parseErrorBody(
      422,
      JSON.stringify({ detail: [{ loc: ["query", "limit"], msg: "too big", type: "less_than_equal" }] }),
    );
    expect(body.message).toBe("The request was not valid");
    expect(body.errors).toEqual([{ field: "query.limit", message: "too big", code: "less_than_equal" }]);
  });

  it.each([
    [401, "", "Not signed in: the token is missing or invalid"],
    [403, "<html>Forbidden</html>", "This token is not allowed to do that"],
    [502, "Bad Gateway", "Request failed (HTTP 502)"],
    [500, "[1, 2]", "Request failed (HTTP 500)"],
  ])("falls back to a message for HTTP %i with body %j", (status, text, message) => {
    expect(parseErrorBody(status, text)).toEqual({ code: `http_${status}`, message, errors: [] });
  });
});

describe("describeError", () => {
  it("gives the API message, or says the API is unreachable", () => {
    expect(describeError(new ApiError(403, { code: "forbidden", message: "Admins only", errors: [] }))).toBe(
      "Admins only",
    );
    expect(describeError(new NetworkError())).toBe("Cannot reach the E3 API");
    expect(describeError("boom")).toBe("boom");
  });

  it("marks 401 and 403 as authentication errors", () => {
    const body = { code: "x", message: "m", errors: [] };
    expect(new ApiError(401, body).isAuth).toBe(true);
    expect(new ApiError(403, body).isAuth).toBe(true);
    expect(new ApiError(404, body).isAuth).toBe(false);
  });
});

describe("splitRefusal", () => {
  const fieldOf = (f: string) => (f === "servers" || f === "name" ? f : null);

  it("puts each field error at its form field and keeps the API's message word for word", () => {
    const error = new ApiError(422, {
      code: "validation_failed",
      message: "invalid cluster spec",
      errors: [
        { field: "servers", message: "must be at least 1, got 0", code: "out_of_range" },
        { field: "name", message: "must match the pattern", code: "pattern" },
        { field: "servers", message: "second", code: "x" },
      ],
    });
    expect(splitRefusal(error, fieldOf)).toEqual({
      message: "invalid cluster spec",
      byField: { servers: ["must be at least 1, got 0", "second"], name: ["must match the pattern"] },
      other: [],
    });
  });

  it("lists what no field shows with its path, and a whole-body error without one", () => {
    const error = new ApiError(400, {
      code: "bad_request",
      message: "the body is not valid YAML",
      errors: [
        { field: "spec.racks[0].servers[0].type", message: "unknown server type 'x'", code: "unknown" },
        { field: "body", message: "line 3: mapping values are not allowed here", code: "yaml" },
      ],
    });
    expect(splitRefusal(error, fieldOf).other).toEqual([
      "spec.racks[0].servers[0].type: unknown server type 'x'",
      "line 3: mapping values are not allowed here",
    ]);
  });

  it("reads a conflict as its message alone, and a lost connection as such", () => {
    const conflict = new ApiError(409, {
      code: "cluster_in_use",
      message: "cluster 'rack1' has 2 deployment(s); delete them first",
      errors: [],
    });
    expect(splitRefusal(conflict, fieldOf)).toEqual({
      message: "cluster 'rack1' has 2 deployment(s); delete them first",
      byField: {},
      other: [],
    });
    expect(splitRefusal(new NetworkError(), fieldOf).message).toBe("Cannot reach the E3 API");
  });
});

describe("fieldMessages", () => {
  it("shows the form's own faults first, then the API's, for one field", () => {
    const refusal: Refusal<"servers" | "name"> = { message: "invalid", byField: { servers: ["must be at most 100000"] }, other: [] };
    expect(fieldMessages("servers", { servers: ["a whole number"] }, refusal)).toEqual(["a whole number", "must be at most 100000"]);
    expect(fieldMessages("name", null, refusal)).toEqual([]);
    expect(fieldMessages("servers", null, null)).toEqual([]);
  });
});
