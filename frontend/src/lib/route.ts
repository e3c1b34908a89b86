// Hash routes of the UI (`#/clusters/c1`), independent of React and of `window`.

export type Route =
  | { name: "home" }
  | { name: "editor"; application?: string }
  | { name: "template"; template: string }
  | { name: "deploy"; application: string }
  | { name: "clusters" }
  | { name: "cluster"; cluster: string }
  | { name: "dashboard"; cluster: string }
  | { name: "node"; cluster: string; node: string }
  | { name: "applications" }
  | { name: "application"; application: string }
  | { name: "deployments" }
  | { name: "deployment"; deployment: string }
  | { name: "jobs" }
  | { name: "admin" }
  | { name: "planner" }
  | { name: "not-found"; path: string };

/** The header's links, in order; each has the test id `nav-<section>`. */
export const NAV_SECTIONS = ["editor", "clusters", "applications", "deployments", "jobs", "planner", "admin"] as const;
export type NavSection = (typeof NAV_SECTIONS)[number];

export const NAV_LABELS: Record<NavSection, string> = {
  editor: "Editor",
  clusters: "Clusters",
  applications: "Applications",
  deployments: "Deployments",
  jobs: "Jobs",
  planner: "Planner",
  admin: "Admin",
};

function decode(segment: string): string | null {
  try {
    return decodeURIComponent(segment);
  } catch {
    return null;
  }
}

/** The route for `location.hash` ("#/clusters/c1", "#clusters", "" all work; a query part is ignored). */
export function parseRoute(hash: string): Route {
  const path = hash.replace(/^#/, "").split("?")[0] ?? "";
  const raw = path.split("/").filter((s) => s !== "");
  const segments = raw.map(decode);
  const notFound: Route = { name: "not-found", path: `/${raw.join("/")}` };
  if (segments.some((s) => s === null || s.trim() === "")) return notFound;
  const [first, second, third, fourth, ...rest] = segments as string[];
  if (rest.length > 0) return notFound;
  // A cluster's node: its energy over time.
  if (fourth !== undefined) {
    return first === "clusters" && third === "nodes" ? { name: "node", cluster: second as string, node: fourth } : notFound;
  }
  // Only a cluster has a page below it: its live dashboard.
  if (third !== undefined) {
    return first === "clusters" && third === "dashboard" ? { name: "dashboard", cluster: second as string } : notFound;
  }

  switch (first) {
    case undefined:
      return { name: "home" };
    case "editor":
      return second === undefined ? { name: "editor" } : { name: "editor", application: second };
    case "templates":
      return second === undefined ? notFound : { name: "template", template: second };
    case "deploy":
      return second === undefined ? notFound : { name: "deploy", application: second };
    case "clusters":
      return second === undefined ? { name: "clusters" } : { name: "cluster", cluster: second };
    case "applications":
      return second === undefined ? { name: "applications" } : { name: "application", application: second };
    case "deployments":
      return second === undefined ? { name: "deployments" } : { name: "deployment", deployment: second };
    case "jobs":
      return second === undefined ? { name: "jobs" } : notFound;
    case "admin":
      return second === undefined ? { name: "admin" } : notFound;
    case "planner":
      return second === undefined ? { name: "planner" } : notFound;
    default:
      return notFound;
  }
}

const part = (value: string) => encodeURIComponent(value);

/** The `href` of a route ("#/clusters/c%201"); parseRoute(routeHref(r)) gives r back. */
export function routeHref(route: Route): string {
  switch (route.name) {
    case "home":
      return "#/";
    case "editor":
      return route.application === undefined ? "#/editor" : `#/editor/${part(route.application)}`;
    case "template":
      return `#/templates/${part(route.template)}`;
    case "deploy":
      return `#/deploy/${part(route.application)}`;
    case "clusters":
    case "applications":
    case "deployments":
    case "jobs":
    case "admin":
    case "planner":
      return `#/${route.name}`;
    case "cluster":
      return `#/clusters/${part(route.cluster)}`;
    case "dashboard":
      return `#/clusters/${part(route.cluster)}/dashboard`;
    case "node":
      return `#/clusters/${part(route.cluster)}/nodes/${part(route.node)}`;
    case "application":
      return `#/applications/${part(route.application)}`;
    case "deployment":
      return `#/deployments/${part(route.deployment)}`;
    case "not-found":
      return `#${route.path}`;
  }
}

/** Which header link a route belongs to (highlighted), if any. */
export function navSection(route: Route): NavSection | null {
  switch (route.name) {
    case "editor":
    case "template":
      return "editor";
    case "clusters":
    case "cluster":
    case "dashboard":
    case "node":
      return "clusters";
    case "applications":
    case "application":
    case "deploy":
      return "applications";
    case "deployments":
    case "deployment":
      return "deployments";
    case "jobs":
      return "jobs";
    case "admin":
      return "admin";
    case "planner":
      return "planner";
    default:
      return null;
  }
}

/** A short title for the browser tab. */
export function routeTitle(route: Route): string {
  switch (route.name) {
    case "home":
      return "E3 control plane";
    case "editor":
      return route.application === undefined ? "New application · E3" : `${route.application} · Editor · E3`;
    case "template":
      return `${route.template} · Template · E3`;
    case "deploy":
      return `Deploy ${route.application} · E3`;
    case "cluster":
      return `${route.cluster} · Cluster · E3`;
    case "dashboard":
      return `${route.cluster} · Dashboard · E3`;
    case "node":
      return `Node energy · ${route.cluster} · E3`;
    case "planner":
      return "Capacity planner · E3";
    case "application":
      return `${route.application} · Application · E3`;
    case "deployment":
      return `Deployment ${route.deployment.split("-")[0]} · E3`;
    case "not-found":
      return "Not found · E3";
    default:
      return `${NAV_LABELS[route.name]} · E3`;
  }
}
