import { useCallback, useState } from "react";

import type { CostControl, CostControls } from "./costQuery";

/** The price a person last typed, kept across reloads (the API checks it; a refused one shows its message). */
export const PRICE_STORAGE_KEY = "e3.dashboard.usdPerKwh";

const storage = (): Storage | null => (typeof window === "undefined" ? null : window.localStorage);

function loadPrice(): string {
  try {
    return storage()?.getItem(PRICE_STORAGE_KEY) ?? "";
  } catch {
    return ""; // storage disabled: the paper's price
  }
}

function savePrice(text: string): void {
  try {
    if (text.trim() === "") storage()?.removeItem(PRICE_STORAGE_KEY);
    else storage()?.setItem(PRICE_STORAGE_KEY, text);
  } catch {
    // storage full or disabled: the price holds for this page only
  }
}

export interface CostControlsState {
  controls: CostControls;
  set: (control: CostControl, text: string) => void;
}

/** The cost panel's controls as typed: years of ownership (5 by default, the paper's Figure 10) and the
 * electricity price (empty: the paper's, which the API applies). */
export function useCostControls(): CostControlsState {
  const [controls, setControls] = useState<CostControls>(() => ({ years: "5", price: loadPrice() }));
  const set = useCallback((control: CostControl, text: string) => {
    if (control === "price") savePrice(text);
    setControls((c) => ({ ...c, [control]: text }));
  }, []);
  return { controls, set };
}
