import { RETRY_MS } from "../lib/health";

export function ConnectionBanner({ failedAttempts }: { failedAttempts: number }) {
  return (
    <div className="banner" role="alert" data-testid="connection-banner">
      Lost connection to the E3 API. Retrying every {RETRY_MS / 1000} s
      {failedAttempts > 1 ? ` (attempt ${failedAttempts})` : ""}…
    </div>
  );
}
