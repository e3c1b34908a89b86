"""What a deployment's state means for its user: the placement's outcome and its instances' ACKs/NACKs, in one
word and one sentence.

Placement is only the first half: a placed deployment runs only once the agents have ACKed its instances, and
an agent may refuse one (a NACK with its reason). So the status is derived, each time it is read, from the
stored placement state and the instances' states, never stored apart from them (it could not go stale):

  placing    the job has not placed it yet
  failed     placement was refused, or every instance was refused by its agent
  degraded   some instances were refused, are on nodes no agent runs, or a backup is still being seeded
  deploying  commands are out and not all ACKed yet; none refused so far
  running    every instance ACKed by its agent
  placed     placed on a cluster no agent runs (nothing executes it: a what-if or model-only cluster)

Pure: no database (services/deployments.py reads the counts and the refusals).
"""

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

STATUSES = ("placing", "failed", "degraded", "deploying", "running", "placed")


@dataclass(frozen=True)
class Refusal:
    """One reason agents gave for refusing instances, and how many they refused with it."""

    code: str
    message: str
    instances: int


@dataclass(frozen=True)
class Status:
    status: str  # one of STATUSES
    reason: str | None  # a sentence for a person; None when running or placing


def _refused(failed: int, total: int, refusals: Sequence[Refusal]) -> str:
    text = f"{failed} of {total} instances refused by their agents"
    if refusals:
        first = refusals[0]
        text += f": {first.code}: {first.message}"
        if len(refusals) > 1:
            text += f" (and {len(refusals) - 1} other reason{'s' if len(refusals) > 2 else ''})"
    return text


def deployment_status(state: str, error: Mapping | None, instance_states: Mapping[str, int],
                      refusals: Sequence[Refusal] = ()) -> Status:
    """The status of a deployment whose placement is `state` (pending | placing | placed | failed), with
    `error` (the placement's refusal) and its instances counted by state; `refusals` most common first."""
    if state in ("pending", "placing"):
        return Status("placing", None)
    if state == "failed":
        return Status("failed", (error or {}).get("message") or "placement failed")
    total = sum(instance_states.values())
    failed = instance_states.get("failed", 0)
    if total and failed == total:
        return Status("failed", _refused(failed, total, refusals))
    if failed:
        return Status("degraded", _refused(failed, total, refusals))
    unrun = instance_states.get("placed", 0)
    if total and unrun == total:
        return Status("placed", "no agent runs the nodes it was placed on: nothing executes it")
    problems = []
    if unrun:
        problems.append(f"{unrun} of {total} instances are on nodes no agent runs")
    seeding = instance_states.get("seeding", 0)
    if seeding:
        problems.append(f"{seeding} backup{'s are' if seeding > 1 else ' is'} being seeded after a failover")
    if problems:
        return Status("degraded", "; ".join(problems))
    deploying = instance_states.get("deploying", 0)
    if deploying:
        return Status("deploying", f"{total - deploying} of {total} instances running, {deploying} being deployed")
    return Status("running", None)
