import { describe, expect, it } from "vitest";
import { type Route, navSection, parseRoute, routeHref } from "./route";

describe("parseRoute", () => {
  it("reads every route of the UI", () => {
    expect(parseRoute("")).toEqual({ name: "home" });
    expect(parseRoute("#/")).toEqual({ name: "home" });
    expect(parseRoute("#/editor")).toEqual({ name: "editor" });
    expect(parseRoute("#/editor/iot-ts")).toEqual({ name: "editor", application: "iot-ts" });
    expect(parseRoute("#/templates/nfv-fin")).toEqual({ name: "template", template: "nfv-fin" });
    expect(parseRoute("#/deploy/iot-ts")).toEqual({ name: "deploy", application: "iot-ts" });
    expect(parseRoute("#/clusters")).toEqual({ name: "clusters" });
    expect(parseRoute("#/clusters/c1")).toEqual({ name: "cluster", cluster: "c1" });
    expect(parseRoute("#/clusters/c1/dashboard")).toEqual({ name: "dashboard", cluster: "c1" });
    expect(parseRoute("#/applications")).toEqual({ name: "applications" });
    expect(parseRoute("#/applications/iot-ts")).toEqual({ name: "application", application: "iot-ts" });
    expect(parseRoute("#/deployments")).toEqual({ name: "deployments" });
    expect(parseRoute("#/deployments/9b1f-2c")).toEqual({ name: "deployment", deployment: "9b1f-2c" });
    expect(parseRoute("#/jobs")).toEqual({ name: "jobs" });
    expect(parseRoute("#/clusters/c1/nodes/n-1")).toEqual({ name: "node", cluster: "c1", node: "n-1" });
    expect(parseRoute("#/planner")).toEqual({ name: "planner" });
  });

  it("forgives a missing slash, a trailing slash and a query part", () => {
    expect(parseRoute("#clusters")).toEqual({ name: "clusters" });
    expect(parseRoute("#/clusters/")).toEqual({ name: "clusters" });
    expect(parseRoute("#/jobs?offset=50")).toEqual({ name: "jobs" });
  });

  it("decodes names", () => {
    expect(parseRoute("#/clusters/rack%20a%2Fb")).toEqual({ name: "cluster", cluster: "rack a/b" });
  });

  it("gives not-found for unknown paths, extra segments, missing names and bad escapes", () => {
    expect(parseRoute("#/nope")).toEqual({ name: "not-found", path: "/nope" });
    expect(parseRoute("#/clusters/c1/extra").name).toBe("not-found");
    expect(parseRoute("#/clusters/c1/dashboard/x").name).toBe("not-found");
    expect(parseRoute("#/applications/a/dashboard").name).toBe("not-found");
    expect(parseRoute("#/clusters/%20/dashboard").name).toBe("not-found");
    expect(parseRoute("#/templates").name).toBe("not-found");
    expect(parseRoute("#/deploy").name).toBe("not-found");
    expect(parseRoute("#/jobs/123").name).toBe("not-found");
    expect(parseRoute("#/clusters/c1/dashboard/x").name).toBe("not-found");
    expect(parseRoute("#/applications/a/nodes/x").name).toBe("not-found");
    expect(parseRoute("#/clusters/c1/nodes/x/y").name).toBe("not-found");
    expect(parseRoute("#/planner/x").name).toBe("not-found");
    expect(parseRoute("#/clusters/%E0%A4%A").name).toBe("not-found");
    expect(parseRoute("#/clusters/%20").name).toBe("not-found");
  });
});

describe("routeHref", () => {
  const routes: Route[] = [
    { name: "home" },
    { name: "editor" },
    { name: "editor", application: "my app" },
    { name: "template", template: "iot-ts" },
    { name: "deploy", application: "a/b" },
    { name: "clusters" },
    { name: "cluster", cluster: "c#1" },
    { name: "dashboard", cluster: "rack a/b?" },
    { name: "applications" },
    { name: "application", application: "ä?x" },
    { name: "deployments" },
    { name: "deployment", deployment: "9b1f0c2e-1d" },
    { name: "jobs" },
    { name: "node", cluster: "rack a", node: "n/1" },
    { name: "planner" },
  ];

  it("round-trips through parseRoute, whatever the name holds", () => {
    for (const route of routes) expect(parseRoute(routeHref(route))).toEqual(route);
  });

  it("writes the documented paths", () => {
    expect(routeHref({ name: "cluster", cluster: "c1" })).toBe("#/clusters/c1");
    expect(routeHref({ name: "template", template: "nfv-fin" })).toBe("#/templates/nfv-fin");
    expect(routeHref({ name: "home" })).toBe("#/");
    expect(routeHref({ name: "dashboard", cluster: "rack" })).toBe("#/clusters/rack/dashboard");
    expect(routeHref({ name: "deployment", deployment: "9b1f0c2e" })).toBe("#/deployments/9b1f0c2e");
  });
});

describe("navSection", () => {
  it("highlights the section a page belongs to", () => {
    expect(navSection(parseRoute("#/templates/iot-ts"))).toBe("editor");
    expect(navSection(parseRoute("#/clusters/c1"))).toBe("clusters");
    expect(navSection(parseRoute("#/clusters/c1/dashboard"))).toBe("clusters");
    expect(navSection(parseRoute("#/deploy/x"))).toBe("applications");
    expect(navSection(parseRoute("#/deployments/9b1f"))).toBe("deployments");
    expect(navSection(parseRoute("#/clusters/c1/nodes/n1"))).toBe("clusters");
    expect(navSection(parseRoute("#/planner"))).toBe("planner");
    expect(navSection(parseRoute("#/"))).toBeNull();
  });
});

describe("the admin page", () => {
  it("has its own route and header section", () => {
    expect(parseRoute("#/admin")).toEqual({ name: "admin" });
    expect(parseRoute("#/admin/tokens").name).toBe("not-found");
    expect(routeHref({ name: "admin" })).toBe("#/admin");
    expect(navSection({ name: "admin" })).toBe("admin");
  });
});
