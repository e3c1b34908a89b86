// Python's repr() of a str, and reprlib's shortened one, so the editor's local checks word a value as the
// API's messages do (backend/e3/schemas/dag.py short_repr, service_config.py reprlib.repr). Pure.

/** Python's repr() of a str. */
export function pyStrRepr(s: string): string {
  const quote = s.includes("'") && !s.includes('"') ? '"' : "'";
  let out = "";
  for (const ch of s) {
    const code = ch.codePointAt(0) ?? 0;
    if (ch === "\\") out += "\\\\";
    else if (ch === quote) out += "\\" + ch;
    else if (ch === "\n") out += "\\n";
    else if (ch === "\r") out += "\\r";
    else if (ch === "\t") out += "\\t";
    else if (code < 0x20 || code === 0x7f) out += "\\x" + code.toString(16).padStart(2, "0");
    else out += ch;
  }
  return quote + out + quote;
}

/** reprlib.repr() of a str: its repr when at most 30 characters, else the repr of its first 13 and last 14
 * characters with the middle of that repr replaced by "...". */
export function reprlibRepr(s: string): string {
  const MAX = 30;
  const chars = [...s];
  const whole = pyStrRepr(chars.slice(0, MAX).join(""));
  if ([...whole].length <= MAX) return whole;
  const head = Math.floor((MAX - 3) / 2);
  const tail = MAX - 3 - head;
  const cut = [...pyStrRepr([...chars.slice(0, head), ...chars.slice(chars.length - tail)].join(""))];
  return [...cut.slice(0, head), "...", ...cut.slice(cut.length - tail)].join("");
}
