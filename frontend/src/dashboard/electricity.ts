// The electricity price the cost efficiency uses: typed by a person, checked, and kept in localStorage.

import { PAPER_USD_PER_KWH } from "./costEfficiency";

export const PRICE_STORAGE_KEY = "e3.dashboard.usdPerKwh";
/** Above this a price is almost surely in cents or per MWh: refused with a hint rather than believed. */
export const MAX_USD_PER_KWH = 5;

export type PriceCheck = { ok: true; value: number } | { ok: false; message: string };

/** Reads a price in $/kWh ("0.0733", "0,12", "$0.10"); a message for anything else. */
export function parsePrice(text: string): PriceCheck {
  const cleaned = text.trim().replace(/^\$\s*/, "").replace(/\s*(\$?\/\s*kwh)$/i, "");
  if (cleaned === "") return { ok: false, message: "Enter the electricity price in $/kWh, e.g. 0.0733." };
  const normalised = /^\d*,\d+$/.test(cleaned) ? cleaned.replace(",", ".") : cleaned;
  if (!/^(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i.test(normalised)) {
    return { ok: false, message: `"${text.trim()}" is not a number: enter $/kWh, e.g. 0.0733.` };
  }
  const value = Number(normalised);
  if (!Number.isFinite(value)) return { ok: false, message: "The price is too large to be a number." };
  if (value <= 0) return { ok: false, message: "The price must be above $0/kWh." };
  if (value > MAX_USD_PER_KWH) {
    return {
      ok: false,
      message: `$${value}/kWh is above $${MAX_USD_PER_KWH}/kWh: is it in cents? Enter dollars, e.g. 0.0733 for 7.33 ¢.`,
    };
  }
  return { ok: true, value };
}

/** The stored price, or the paper's when none (or an unreadable one) is stored. */
export function loadPrice(storage: Pick<Storage, "getItem"> | null | undefined): number {
  try {
    const raw = storage?.getItem(PRICE_STORAGE_KEY);
    if (raw == null) return PAPER_USD_PER_KWH;
    const check = parsePrice(raw);
    return check.ok ? check.value : PAPER_USD_PER_KWH;
  } catch {
    return PAPER_USD_PER_KWH; // storage disabled
  }
}

export function savePrice(storage: Pick<Storage, "setItem"> | null | undefined, value: number): void {
  try {
    storage?.setItem(PRICE_STORAGE_KEY, String(value));
  } catch {
    // storage full or disabled: the price holds for this page only
  }
}
