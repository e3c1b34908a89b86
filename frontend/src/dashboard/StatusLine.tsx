import { LiveBanner } from "../live/LiveBanner";
import type { UseLive } from "../live/useLive";
import { formatAge } from "./format";

const TRANSPORT_TEXT: Record<UseLive["transport"], string> = {
  websocket: "WebSocket",
  sse: "server-sent events (fallback)",
  polling: "polling (last resort)",
};

/** The connection's state in a fixed-height slot (so the banner coming and going moves nothing): the live
 * banner when the stream is lost or refused, else one line saying how the data comes and how fresh it is.
 * Every line is the same dot and one text node, so no text moves when the state changes. */
export function StatusLine({ live, lastMessageAt, now }: { live: UseLive; lastMessageAt: number | null; now: number }) {
  const { connection, error, attempt, transport, view } = live;
  let body;
  if (connection === "reconnecting" || connection === "refused") {
    body = <LiveBanner connection={connection} error={error} attempt={attempt} />;
  } else if (connection === "connecting" || lastMessageAt === null) {
    body = (
      <span className="dash-status-line muted">
        <span className="dash-dot dash-dot-wait" aria-hidden="true" />
        {" Connecting to the live channel…"}
      </span>
    );
  } else if (!view.current) {
    body = (
      <span className="dash-status-line dash-status-bad" role="status">
        <span className="dash-dot dash-dot-bad" aria-hidden="true" />
        {` No live message for ${formatAge(now - lastMessageAt)}: the figures below are not current.`}
      </span>
    );
  } else {
    body = (
      <span className="dash-status-line">
        <span className="dash-dot" aria-hidden="true" />
        {` Live over ${TRANSPORT_TEXT[transport]}`}
      </span>
    );
  }
  return (
    <div className="dash-status" data-testid="dash-status" data-connection={connection} data-current={view.current ? "true" : "false"}>
      {body}
    </div>
  );
}
