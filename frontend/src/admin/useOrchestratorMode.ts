import { useCallback, useEffect, useState } from "react";
import { useFormSubmit } from "../hooks/useFormSubmit";
import { type Refusal, describeError, noField } from "../lib/errors";
import { type OrchestratorModeName, type OrchestratorState, getOrchestratorMode, setOrchestratorMode } from "./adminApi";

export interface OrchestratorModeState {
  /** The mode in force as the API last told it; null until loaded. */
  current: OrchestratorState | null;
  loadError: string | null;
  /** The mode being set, while the API has not answered. */
  saving: OrchestratorModeName | null;
  /** Why the last change was refused; the mode in force stays as it was. */
  refusal: Refusal<never> | null;
  change: (mode: OrchestratorModeName) => void;
}

/** The orchestrator's mode: read once, changed on request (PUT), never shown as changed unless the API said so. */
export function useOrchestratorMode(): OrchestratorModeState {
  const [current, setCurrent] = useState<OrchestratorState | null>(null);
  const [loadError, setLoadError] = useState<string | null>(null);
  const [asked, setAsked] = useState<OrchestratorModeName | null>(null);
  const { busy, refusal, send } = useFormSubmit();

  useEffect(() => {
    const controller = new AbortController();
    getOrchestratorMode(controller.signal).then(setCurrent, (error: unknown) => {
      if (!controller.signal.aborted) setLoadError(describeError(error));
    });
    return () => controller.abort();
  }, []);

  const change = useCallback(
    (mode: OrchestratorModeName) => {
      setAsked(mode);
      send(() => setOrchestratorMode(mode), noField, setCurrent);
    },
    [send],
  );

  return { current, loadError, saving: busy ? asked : null, refusal, change };
}
