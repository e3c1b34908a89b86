"""Several controllers' expositions as one (E3_CONTROLLERS > 1): each family once, with its HELP and TYPE, then
the samples of every controller in turn. The same series from two controllers is one sample: counters are summed
(a heartbeat is counted by the one controller that received it, so a node that moved has counted part of its
joules at each), a gauge keeps the first controller's value (a controller exports a node's watts only while it
watches the node). Pure: text in, text out.
"""

from dataclasses import dataclass, field

from e3.metrics.ledger_exposition import number


class MalformedExposition(ValueError):
    """A text that is not exposition text; `index` says which of the texts merged."""

    def __init__(self, index: int, message: str):
        super().__init__(message)
        self.index = index


@dataclass
class _Family:
    help_line: str
    type_line: str
    kind: str  # counter | gauge | ... (the TYPE line's)
    samples: dict[str, float] = field(default_factory=dict)  # series (name + labels) -> value, first-seen order


def merge_expositions(texts: list[str]) -> str:
    """One exposition of every family of `texts`, each in Prometheus' text format 0.0.4 as the controllers render
    it (a family's HELP and TYPE lines, then its samples; no timestamps). MalformedExposition on a sample outside a
    family or a line that is not a sample."""
    families: dict[str, _Family] = {}
    for index, text in enumerate(texts):
        family: _Family | None = None
        pending_help = ""
        for line in text.splitlines():
            if not line:
                continue
            if line.startswith("# HELP "):
                name = line.split(" ", 3)[2]
                family = families.get(name)
                pending_help = line
                continue
            if line.startswith("# TYPE "):
                name, kind = line.split(" ")[2:4]
                family = families.setdefault(name, _Family(pending_help or f"# HELP {name}", line, kind))
                continue
            if line.startswith("#"):
                continue
            if family is None:
                raise MalformedExposition(index, f"a sample outside any family: {line[:80]!r}")
            series, _, value = line.rpartition(" ")
            try:
                sample = float(value) if series else None
            except ValueError:
                sample = None
            if sample is None:
                raise MalformedExposition(index, f"not a sample: {line[:80]!r}")
            if series in family.samples:
                if family.kind == "counter":
                    family.samples[series] += sample
            else:
                family.samples[series] = sample
    return "".join(f.help_line + "\n" + f.type_line + "\n"
                   + "".join(f"{series} {number(value)}\n" for series, value in f.samples.items())
                   for f in families.values())

