import type { LiveConnection } from "./types";

/** Shown while the live stream is not delivering: its figures are then marked as old. */
export function LiveBanner({
  connection,
  error,
  attempt,
}: {
  connection: LiveConnection;
  error: string | null;
  attempt: number;
}) {
  if (connection === "live" || connection === "fallback" || connection === "connecting") return null;
  const text =
    connection === "refused"
      ? `Live updates refused: ${error ?? "unknown reason"}.`
      : `Live updates lost${error ? ` (${error})` : ""}. Reconnecting${attempt > 1 ? ` (attempt ${attempt})` : ""}… ` +
        "The figures shown are not current.";
  return (
    <div className="banner" role="alert" data-testid="live-banner">
      {text}
    </div>
  );
}
