import { useEffect, useState } from "react";

/** Seconds since `since`, ticking while shown. */
export function Elapsed({ since }: { since: number }) {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 250);
    return () => clearInterval(timer);
  }, []);
  return <>{Math.max(0, (now - since) / 1000).toFixed(1)} s</>;
}
