import { useEffect, useState } from "react";
import { api, unwrap } from "../api/http";
import { type JobView, isAbortError, isConnectionError, isTerminal, parseJob, pollDelayMs } from "./deployJob";
import { describeError } from "../lib/errors";

export interface JobPollState {
  job: JobView | null;
  /** The API stopped answering; polling goes on and this clears when it answers again. */
  connectionLost: boolean;
  failedAttempts: number;
  /** A refusal that ends polling (e.g. 404: the job is gone). */
  error: string | null;
}

const initial: JobPollState = { job: null, connectionLost: false, failedAttempts: 0, error: null };

/** Polls GET /jobs/{jobId} every 400 ms until it succeeds or fails; keeps retrying while the connection is lost. */
export function useJob(jobId: string | null): JobPollState {
  const [state, setState] = useState<JobPollState>(initial);

  useEffect(() => {
    setState(initial);
    if (jobId === null) return;
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    let failures = 0;

    const poll = async () => {
      try {
        const body = unwrap(
          await api.GET("/api/v1/jobs/{job_id}", { params: { path: { job_id: jobId } }, signal: controller.signal }),
        );
        if (controller.signal.aborted) return;
        const job = parseJob(body);
        failures = 0;
        setState({ job, connectionLost: false, failedAttempts: 0, error: null });
        if (job !== null && isTerminal(job.state)) return;
      } catch (error) {
        if (controller.signal.aborted || isAbortError(error)) return;
        if (!isConnectionError(error)) {
          setState((s) => ({ ...s, connectionLost: false, error: describeError(error) }));
          return;
        }
        failures += 1;
        setState((s) => ({ ...s, connectionLost: true, failedAttempts: failures }));
      }
      timer = setTimeout(() => void poll(), pollDelayMs(failures));
    };
    void poll();

    return () => {
      controller.abort();
      if (timer !== undefined) clearTimeout(timer);
    };
  }, [jobId]);

  return state;
}
