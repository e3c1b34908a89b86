// Where the editor's document is saved, and how its last save went.

import type { FieldError } from "./dagValidation";

/** Where the document is saved: a stored application (with the ETag it was loaded at) or nowhere yet. */
export interface Target {
  appName: string | null;
  etag: string | null;
  source: string;
}

export interface SaveState {
  saving: boolean;
  error: string | null;
  /** Field errors from a refused save, for the spec they were about. */
  errors: { key: string; errors: FieldError[] } | null;
  conflict: string | null;
  saved: { name: string; version: number } | null;
}

export const IDLE: SaveState = { saving: false, error: null, errors: null, conflict: null, saved: null };
