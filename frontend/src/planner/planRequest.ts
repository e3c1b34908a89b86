// The capacity planner's form as the request POST /api/v1/plans takes (docs/energy.md, "Capacity planner"),
// and where the API's field errors are shown on it. Numbers are passed on as typed (text that is no number
// goes as null), so the person reads the API's own message naming the field, not a second set of rules here.

import { load } from "js-yaml";

import type { components } from "../api/http";

export type PlanCreate = components["schemas"]["PlanCreate"];
export type PlanPublic = components["schemas"]["PlanPublic"];
export type PlanCandidate = components["schemas"]["PlanCandidate"];
type CustomServerType = components["schemas"]["CustomServerType"];

export interface CustomTypeDraft {
  name: string;
  costUsd: string;
  idleWatts: string;
  peakWatts: string;
  hostCores: string;
  hostCoreClass: "beefy" | "wimpy";
  smartnics: string;
}

export interface PlanForm {
  /** Stored applications by name, or one pasted spec (YAML or JSON). */
  source: "stored" | "spec";
  names: string[];
  specText: string;
  load: string;
  years: string;
  price: string;
  /** The catalogue's types to consider; every one when `allTypes`. */
  allTypes: boolean;
  serverTypes: string[];
  custom: CustomTypeDraft[];
}

/** The form's parts a field error is shown at. */
export type PlanField = "applications" | "load" | "years" | "price" | "serverTypes" | "custom";

export const EMPTY_FORM: PlanForm = {
  source: "stored",
  names: [],
  specText: "",
  load: "1000000",
  years: "5",
  price: "",
  allTypes: true,
  serverTypes: [],
  custom: [],
};

export const NEW_CUSTOM_TYPE: CustomTypeDraft = {
  name: "",
  costUsd: "",
  idleWatts: "",
  peakWatts: "",
  hostCores: "",
  hostCoreClass: "beefy",
  smartnics: "0",
};

/** Typed text as a number; empty or not a number → null, which the API refuses naming the field. */
const numberOf = (text: string): number => (text.trim() === "" ? Number.NaN : Number(text.trim()));
const asJson = (n: number): number => (Number.isFinite(n) ? n : (null as unknown as number));

function customType(draft: CustomTypeDraft): CustomServerType {
  return {
    name: draft.name.trim(),
    cost_usd: asJson(numberOf(draft.costUsd)),
    idle_watts: asJson(numberOf(draft.idleWatts)),
    peak_watts: asJson(numberOf(draft.peakWatts)),
    host_cores: asJson(numberOf(draft.hostCores)),
    host_core_class: draft.hostCoreClass,
    smartnics: asJson(numberOf(draft.smartnics === "" ? "0" : draft.smartnics)),
  } as CustomServerType;
}

/** The request for the form, or what the form itself cannot send (a spec that is neither YAML nor JSON). */
export function planRequest(form: PlanForm): { body: PlanCreate } | { problem: { field: PlanField; message: string } } {
  let applications: PlanCreate["applications"];
  if (form.source === "spec") {
    let spec: unknown;
    try {
      spec = load(form.specText);
    } catch (error) {
      const why = error instanceof Error ? error.message.split("\n")[0] : String(error);
      return { problem: { field: "applications", message: `spec: not YAML or JSON (${why})` } };
    }
    if (typeof spec !== "object" || spec === null || Array.isArray(spec)) {
      return { problem: { field: "applications", message: "spec: paste an application document (apiVersion, kind, metadata, spec)" } };
    }
    applications = [{ spec: spec as Record<string, unknown> }];
  } else {
    applications = form.names.map((name) => ({ name }));
  }
  const body: PlanCreate = {
    applications,
    load_rps: asJson(numberOf(form.load)),
    ...(form.years.trim() === "" ? {} : { years: asJson(numberOf(form.years)) }),
    ...(form.price.trim() === "" ? {} : { price_per_kwh: asJson(numberOf(form.price)) }),
    ...(form.allTypes ? {} : { server_types: form.serverTypes }),
    ...(form.custom.length === 0 ? {} : { custom_server_types: form.custom.map(customType) }),
  } as PlanCreate;
  return { body };
}

/** Where an API field error goes ("custom_server_types[0].peak_watts" → the custom types). */
export function planFieldOf(apiField: string): PlanField | null {
  const field = apiField.replace(/^body\./, "");
  const head = field.split(/[.[]/)[0];
  switch (head) {
    case "applications":
      return "applications";
    case "load_rps":
      return "load";
    case "years":
      return "years";
    case "price_per_kwh":
      return "price";
    case "server_types":
      return "serverTypes";
    case "custom_server_types":
      return "custom";
    default:
      return null;
  }
}
