// The typed REST client: openapi-fetch over the generated schema (schema.gen.ts, from
// frontend/openapi.json; regenerate with `npm run gen:api`, never edit by hand).
// Every request carries the bearer token; error bodies are turned into ApiError.

import createClient, { type Middleware } from "openapi-fetch";

import { ApiError, parseErrorBody } from "../lib/errors";
import type { paths } from "./schema.gen";

export type { components, paths } from "./schema.gen";

let currentToken: string | null = null;

/** The token every later request carries (set on sign-in, cleared on sign-out). */
export function setApiToken(token: string | null): void {
  currentToken = token;
}

const auth: Middleware = {
  onRequest({ request }) {
    if (currentToken) request.headers.set("Authorization", `Bearer ${currentToken}`);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: "" });
api.use(auth);

/** The data of an openapi-fetch result, or throw ApiError with the API's message and field errors. */
export function unwrap<T>(result: { data?: T; error?: unknown; response: Response }): T {
  if (result.error !== undefined || !result.response.ok) {
    const text = typeof result.error === "string" ? result.error : JSON.stringify(result.error ?? "");
    throw new ApiError(result.response.status, parseErrorBody(result.response.status, text));
  }
  return result.data as T;
}

export { ApiError };
