import { useCallback, useState } from "react";
import { type Refusal, splitRefusal } from "../lib/errors";

export interface FormSubmit<F extends string> {
  /** A call is running. */
  busy: boolean;
  /** The API's refusal of the last call, laid out over the form's fields; null once edited or sent again. */
  refusal: Refusal<F> | null;
  clearRefusal: () => void;
  /** Runs `call`; its answer goes to `onDone`, a throw becomes `refusal` (fields placed by `fieldOf`). */
  send: <T>(call: () => Promise<T>, fieldOf: (apiField: string) => F | null, onDone: (answer: T) => void) => void;
}

/** A form or dialog sending one request to the API at a time, showing its refusal in place. */
export function useFormSubmit<F extends string = never>(): FormSubmit<F> {
  const [busy, setBusy] = useState(false);
  const [refusal, setRefusal] = useState<Refusal<F> | null>(null);
  const clearRefusal = useCallback(() => setRefusal(null), []);
  const send = useCallback(
    <T,>(call: () => Promise<T>, fieldOf: (apiField: string) => F | null, onDone: (answer: T) => void) => {
      setBusy(true);
      setRefusal(null);
      call().then(
        (answer) => {
          setBusy(false);
          onDone(answer);
        },
        (error: unknown) => {
          setBusy(false);
          setRefusal(splitRefusal(error, fieldOf));
        },
      );
    },
    [],
  );
  return { busy, refusal, clearRefusal, send };
}
