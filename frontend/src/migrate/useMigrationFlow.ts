import { useCallback, useEffect, useReducer, useRef } from "react";
import { getMigration, requestMigration } from "../api/client";
import { ApiError, describeError } from "../lib/errors";
import { type FlowState, type Move, flowReducer, initialFlow, isTerminalMigration } from "./migrationFlow";

const POLL_MS = 250;

export interface MigrationFlow {
  state: FlowState;
  propose: (move: Move) => void;
  confirm: () => void;
  dismiss: () => void;
}

/** The reason to show for a refused request: the API's message and its field errors. */
function reasonOf(error: unknown): { reason: string; code: string } {
  if (error instanceof ApiError) {
    // Field errors often repeat the message (with the field in front): only what it does not already say.
    const details = error.errors.map((e) => e.message).filter((m) => m && !error.message.includes(m));
    return { reason: [error.message, ...details].join(": "), code: error.code };
  }
  return { reason: describeError(error), code: "network" };
}

/**
 * The migration flow (migrationFlow.ts) with its calls: a dry run for each proposal, the migration on
 * confirm, then GET /migrations/{id} every 250 ms until it ends. `onEnded` runs once per migration that
 * ends (to redraw the placement and the history).
 */
export function useMigrationFlow(onEnded: () => void): MigrationFlow {
  const [state, dispatch] = useReducer(flowReducer, initialFlow);
  const ended = useRef(onEnded);
  ended.current = onEnded;

  const phase = state.phase;
  const seq = state.seq;
  const move = "move" in state ? state.move : null;
  const migrationId = state.phase === "running" ? state.migrationId : null;

  // The dry run of a new proposal.
  useEffect(() => {
    if (phase !== "predicting" || move === null) return;
    const controller = new AbortController();
    requestMigration(move.instanceId, move.targetName, true, controller.signal).then(
      (answer) => dispatch({ type: "predicted", seq, answer }),
      (error: unknown) => {
        if (!controller.signal.aborted) dispatch({ type: "refused", seq, ...reasonOf(error) });
      },
    );
    return () => controller.abort();
  }, [phase, seq, move]);

  // The migration itself: sent once per confirmed proposal (an effect run twice must not send it
  // twice), and not aborted on unmount: once sent it happens.
  const sent = useRef(-1);
  useEffect(() => {
    if (phase !== "starting" || move === null || sent.current === seq) return;
    sent.current = seq;
    requestMigration(move.instanceId, move.targetName, false).then(
      (answer) => {
        if (answer.migration_id) dispatch({ type: "started", seq, migrationId: answer.migration_id });
        else dispatch({ type: "refused", seq, reason: "the API accepted the migration but named none", code: "bad_response" });
      },
      (error: unknown) => dispatch({ type: "refused", seq, ...reasonOf(error) }),
    );
  }, [phase, seq, move]);

  // Following its steps.
  useEffect(() => {
    if (migrationId === null) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const poll = async () => {
      try {
        const migration = await getMigration(migrationId, controller.signal);
        if (controller.signal.aborted) return;
        dispatch({ type: "progress", seq, migration });
        if (isTerminalMigration(migration.state)) {
          ended.current();
          return;
        }
      } catch {
        if (controller.signal.aborted) return; // a lost connection: keep polling
      }
      timer = setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      clearTimeout(timer);
    };
  }, [migrationId, seq]);

  const propose = useCallback((m: Move) => dispatch({ type: "propose", move: m }), []);
  const confirm = useCallback(() => dispatch({ type: "confirm" }), []);
  const dismiss = useCallback(() => dispatch({ type: "dismiss" }), []);
  return { state, propose, confirm, dismiss };
}
