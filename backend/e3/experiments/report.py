"""docs/evaluation.md from the runner's summaries (results/*/summary.json): what is reproduced, what is not, why.

The page opens with a plain account per experiment (reproduced: every quantity with a paper value within
its tolerance; partly; not reproduced; skipped or crashed, with the reason), then a table per experiment
with its notes and its plot, copied next to the page (docs/img/evaluation/NAME.png) so the page stands alone.
"""

import json
import shutil
from pathlib import Path

COLUMNS = ("quantity", "labels", "paper", "ours", "ratio", "tolerance", "verdict", "source", "role")


def load_summaries(results_dir: Path) -> list[dict]:
    """Every results_dir/NAME/summary.json, by experiment name."""
    summaries = [json.loads(p.read_text()) for p in sorted(results_dir.glob("*/summary.json"))]
    return sorted(summaries, key=lambda s: s["experiment"])


def _number(value) -> str:
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _yes_no(q: dict, value) -> str | None:
    """A yes/no quantity (unit "1 = <word>", e.g. "1 = same"): its value in words; None for any other."""
    unit = q.get("unit") or ""
    if not unit.startswith("1 = ") or value is None:
        return None
    return unit[4:] if value == 1 else f"not {unit[4:]}" if unit[4:] != "yes" else "no"


def _paper(q: dict) -> str:
    return _yes_no(q, q["paper"]) or _number(q["paper"])


def _ours(q: dict) -> str:
    if (words := _yes_no(q, q["ours"])) is not None:
        return words
    text = _number(q["ours"]) + (f" {q['unit']}" if q.get("unit") and q["ours"] is not None else "")
    if q.get("runs", 1) > 1 and q["min"] != q["max"]:
        text += f" ({_number(q['min'])}–{_number(q['max'])})"
    return text


def _tolerance(q: dict) -> str:
    return "–" if q["tolerance"] is None else f"±{q['tolerance'] * 100:.0f}%"


def _labels(q: dict) -> str:
    return ", ".join(f"{k}={v}" for k, v in q.get("labels", {}).items()) or "–"


def judge(summary: dict) -> tuple[str, str]:
    """(verdict in words, the counts): reproduced / partly reproduced / not reproduced / skipped / ..."""
    if summary["status"] == "skipped":
        return "skipped", summary["skipped"]
    verdicts = [q["verdict"] for q in summary["quantities"]]
    within, outside = verdicts.count("within"), verdicts.count("outside")
    counts = f"{within} of {within + outside} compared quantities within tolerance"
    if summary["status"] in ("crashed", "incomplete"):
        return summary["status"], f"{summary['incomplete']}; {counts}"
    if within + outside == 0:
        return "nothing to compare", "no quantity has a paper value and a tolerance"
    if outside == 0:
        return "reproduced", counts
    return ("not reproduced" if within == 0 else "partly reproduced"), counts


def _overview(summaries: list[dict]) -> list[str]:
    lines = ["## Summary", ""]
    quick = [s["experiment"] for s in summaries if s.get("quick")]
    if quick:
        lines += [f"**Quick runs** (`--quick`: smaller inputs, shorter limits) for {', '.join(quick)}: "
                  "run `make reproduce` for the full figures.", ""]
    for s in summaries:
        verdict, detail = judge(s)
        lines.append(f"- **{s['experiment']}** ({s['title']}): **{verdict}**, {detail}.")
        if verdict not in ("reproduced", "skipped") and s["notes"]:
            lines.append(f"  Why: {s['notes'][0]}")
    return lines + [""]


def _section(summary: dict, image: str | None) -> list[str]:
    m = summary["machine"]
    lines = [f"## {summary['experiment']}: {summary['title']}", "",
             f"{summary['runs']} run(s){' (quick)' if summary.get('quick') else ''}, {summary['date']}, commit "
             f"`{summary.get('commit') or 'unknown'}`, on {m['cores']} cores ({m['cpu_model']}), "
             f"{m['memory_gb']} GB, {m['os']}, Python {m['python']}.", ""]
    if summary["status"] == "skipped":
        return lines + [f"Skipped: {summary['skipped']}.", ""]
    if summary.get("incomplete"):
        lines += [f"**Incomplete**: {summary['incomplete']}.", ""]
    if summary["quantities"]:
        lines += ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
        for q in summary["quantities"]:
            cells = (q["name"], _labels(q), _paper(q), _ours(q), _number(q["ratio"]), _tolerance(q),
                     q["verdict"], q["source"], q.get("role") or "–")
            lines.append("| " + " | ".join(str(c).replace("|", "/") for c in cells) + " |")
        lines.append("")
    if summary["notes"]:
        lines += ["Notes:", ""] + [f"- {note}" for note in summary["notes"]] + [""]
    if image:
        lines += [f"![{summary['experiment']}]({image})", ""]
    return lines


def render(summaries: list[dict], results_dir: Path, docs_dir: Path) -> str:
    """The page's markdown; copies each plot to docs_dir/img/evaluation/NAME.png."""
    images = docs_dir / "img" / "evaluation"
    lines = ["# Evaluation: the paper's tables and figures, reproduced", "",
             "Generated by `e3 experiment report` from `results/*/summary.json` (`make reproduce` runs every "
             "experiment, then this). Do not edit by hand; see docs/reproduce.md for the runner and the sources "
             "of each figure (model, emulation, emulation+model-power, calibration input).", ""]
    lines += _overview(summaries)
    for summary in summaries:
        plot = results_dir / summary["experiment"] / "plot.png"
        image = None
        if plot.is_file() and summary["status"] != "skipped":
            images.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(plot, images / f"{summary['experiment']}.png")
            image = f"img/evaluation/{summary['experiment']}.png"
        lines += _section(summary, image)
    return "\n".join(lines).rstrip() + "\n"


def write_report(results_dir: Path, docs_dir: Path) -> Path:
    """Write docs_dir/evaluation.md from results_dir; ValueError when there is no summary to report."""
    summaries = load_summaries(results_dir)
    if not summaries:
        raise ValueError(f"no results/*/summary.json under {results_dir}: run `e3 experiment run all` first")
    docs_dir.mkdir(parents=True, exist_ok=True)
    page = docs_dir / "evaluation.md"
    page.write_text(render(summaries, results_dir, docs_dir))
    return page
