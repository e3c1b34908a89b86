export interface FieldErrorBody {
  field: string;
  message: string;
  code: string;
  /** Details some errors carry (e.g. a cycle's node ids under `cycle`), kept as the API sent them. */
  [detail: string]: unknown;
}

/** The API's error body for every 4xx it raises itself. */
export interface ErrorBody {
  code: string;
  message: string;
  errors: FieldErrorBody[];
}

/** A non-success HTTP answer, carrying the API's `{code, message, errors}` body. */
export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly errors: FieldErrorBody[];

  constructor(status: number, body: ErrorBody) {
    super(body.message);
    this.name = "ApiError";
    this.status = status;
    this.code = body.code;
    this.errors = body.errors;
  }

  get isAuth(): boolean {
    return this.status === 401 || this.status === 403;
  }
}

/** The request never got an HTTP answer: server down, proxy refused, network gone. */
export class NetworkError extends Error {
  constructor(message = "Cannot reach the E3 API") {
    super(message);
    this.name = "NetworkError";
  }
}

const fallbackMessages: Record<number, string> = {
  401: "Not signed in: the token is missing or invalid",
  403: "This token is not allowed to do that",
  404: "Not found",
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fieldErrors(value: unknown): FieldErrorBody[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isRecord).map((e) => ({
    ...e,
    field: typeof e.field === "string" ? e.field : "",
    message: typeof e.message === "string" ? e.message : String(e.message ?? ""),
    code: typeof e.code === "string" ? e.code : "invalid",
  }));
}

// FastAPI's own errors (unknown route, request validation) use `{detail}`
// rather than E3's body, so both are understood.
function pydanticErrors(detail: unknown[]): FieldErrorBody[] {
  return detail.filter(isRecord).map((e) => ({
    field: Array.isArray(e.loc) ? e.loc.join(".") : "",
    message: typeof e.msg === "string" ? e.msg : "invalid",
    code: typeof e.type === "string" ? e.type : "invalid",
  }));
}

/** Turns any error answer (E3 body, FastAPI `{detail}`, HTML, empty) into an ErrorBody. */
export function parseErrorBody(status: number, text: string): ErrorBody {
  const fallback: ErrorBody = {
    code: `http_${status}`,
    message: fallbackMessages[status] ?? `Request failed (HTTP ${status})`,
    errors: [],
  };
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return fallback;
  }
  if (!isRecord(json)) return fallback;
  if (typeof json.message === "string" && json.message !== "") {
    return {
      code: typeof json.code === "string" ? json.code : fallback.code,
      message: json.message,
      errors: fieldErrors(json.errors),
    };
  }
  if (typeof json.detail === "string" && json.detail !== "") {
    return { ...fallback, message: json.detail };
  }
  if (Array.isArray(json.detail)) {
    return { ...fallback, message: "The request was not valid", errors: pydanticErrors(json.detail) };
  }
  return fallback;
}

/** One line for a person: what went wrong with a call. */
export function describeError(error: unknown): string {
  if (error instanceof ApiError || error instanceof NetworkError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

/** An API refusal laid out on a form: its message, the field errors by form field, and the rest. */
export interface Refusal<F extends string> {
  /** The API's own message, word for word (or why the call got no answer). */
  message: string;
  byField: Partial<Record<F, string[]>>;
  /** Field errors no form field shows, as "where: message". */
  other: string[];
}

/** Fields the API uses for the request as a whole rather than a part of it. */
const WHOLE_BODY = new Set(["", "body"]);

/**
 * Splits `error` over a form: `fieldOf` names the form field an API field (e.g. "servers",
 * "spec.racks[0].name") is shown at, or null to list it under the form with its path.
 */
export function splitRefusal<F extends string>(error: unknown, fieldOf: (apiField: string) => F | null): Refusal<F> {
  const refusal: Refusal<F> = { message: describeError(error), byField: {}, other: [] };
  if (!(error instanceof ApiError)) return refusal;
  for (const e of error.errors) {
    const field = WHOLE_BODY.has(e.field) ? null : fieldOf(e.field);
    if (field !== null) (refusal.byField[field] ??= []).push(e.message);
    else refusal.other.push(WHOLE_BODY.has(e.field) ? e.message : `${e.field}: ${e.message}`);
  }
  return refusal;
}

/** What a form field shows: the form's own faults (once the person tried to send it), then the API's. */
export function fieldMessages<F extends string>(
  field: F,
  own: Partial<Record<F, string[]>> | null,
  refusal: Refusal<F> | null,
): string[] {
  return [...(own?.[field] ?? []), ...(refusal?.byField[field] ?? [])];
}

/** Puts no API field error at a form field: a form without fields (a confirmation) lists them all. */
export const noField = (): null => null;
