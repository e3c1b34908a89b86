// Where the editor's document is saved, and how its last save went.

import type { FieldError } from "./dagValidation";

/** Where the document is saved: a stored application (with the ETag it was loaded at) or nowhere yet. */
export interface Target {
  appName: string | null;
  etag: string | null;
  source: string;
}

/** Why a save failed, for the spec (its specKey) that was sent. */
export interface SaveFailure {
  key: string;
  message: string;
  /** The server's field errors, if it named any. */
  errors: FieldError[];
}

export interface SaveState {
  saving: boolean;
  failure: SaveFailure | null;
  conflict: string | null;
  saved: { name: string; version: number } | null;
}

export const IDLE: SaveState = { saving: false, failure: null, conflict: null, saved: null };

/** The last save's failure if it was about the spec being edited now (`key`); once edited, it is past. */
export function currentFailure(save: SaveState, key: string): SaveFailure | null {
  return save.failure && save.failure.key === key ? save.failure : null;
}
