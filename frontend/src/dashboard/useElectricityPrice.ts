import { useCallback, useState } from "react";

import { loadPrice, parsePrice, savePrice } from "./electricity";

const storage = (): Storage | null => (typeof window === "undefined" ? null : window.localStorage);

export interface ElectricityPrice {
  /** The price in use ($/kWh): the last valid one; null while the text is invalid. */
  value: number | null;
  text: string;
  /** Why the text is not a price, or null. */
  error: string | null;
  setText: (text: string) => void;
}

/** The electricity price field: typed text, checked on every change; a valid price is used and stored. */
export function useElectricityPrice(): ElectricityPrice {
  const [state, setState] = useState(() => {
    const value = loadPrice(storage());
    return { value: value as number | null, text: String(value), error: null as string | null };
  });
  const setText = useCallback((text: string) => {
    const check = parsePrice(text);
    if (check.ok) savePrice(storage(), check.value);
    setState(check.ok ? { value: check.value, text, error: null } : { value: null, text, error: check.message });
  }, []);
  return { ...state, setText };
}
