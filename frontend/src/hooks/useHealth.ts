import { useEffect, useState } from "react";
import { getHealth, getReadiness } from "../api/client";
import { describeError } from "../lib/errors";
import {
  type CheckResult,
  type HealthState,
  applyCheck,
  classifyRound,
  initialHealth,
  nextDelay,
} from "../lib/health";

async function checkOnce(signal: AbortSignal): Promise<CheckResult> {
  const [health, readiness] = await Promise.allSettled([getHealth(signal), getReadiness(signal)]);
  return classifyRound(health, readiness);
}

/** Polls /healthz and /readyz; retries every few seconds while the API is unreachable. */
export function useHealth(): HealthState {
  const [state, setState] = useState<HealthState>(initialHealth);

  useEffect(() => {
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let current = initialHealth;

    const tick = async () => {
      const result = await checkOnce(controller.signal).catch(
        (error: unknown): CheckResult => ({ reachable: false, readiness: null, error: describeError(error) }),
      );
      if (controller.signal.aborted) return;
      current = applyCheck(current, result, new Date());
      setState(current);
      timer = setTimeout(tick, nextDelay(current));
    };
    void tick();

    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, []);

  return state;
}
