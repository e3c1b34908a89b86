// The live channel's messages (docs/live.md), from the generated OpenAPI types: the same JSON arrives
// over WebSocket, server-sent events and the polled snapshot.

import type { components } from "../api/schema.gen";

type Schemas = components["schemas"];
export type LiveMessage = Schemas["LiveMessage"];
export type LiveNode = Schemas["LiveNode"];
export type LiveApplication = Schemas["LiveApplication"];
export type LiveTotals = Schemas["LiveTotals"];
export type LiveInstance = Schemas["LiveInstance"];

/** connecting: no data yet; live: over WebSocket; fallback: over server-sent events or by polling the snapshot
 * (a proxy blocked the WebSocket, or the event stream too; the client's `transport` says which); reconnecting:
 * the stream was lost or a poll failed, retrying (show a banner, the figures are not current); refused: the API
 * refused the token or the cluster (no retry). */
export type LiveConnection = "connecting" | "live" | "reconnecting" | "fallback" | "refused";
