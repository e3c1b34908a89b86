"""The heartbeat benchmarks' streams sent by the compiled load generator (agents/e3-heartbeat-load).

The Python generator (bench.heartbeat_loadgen) registers its agents and serialises their batches; at tens of
thousands of heartbeats/s its own streaming took most of a core beside the controller it measures. With the
compiled generator built (`make agents`), each load-generator process hands its streams to it instead: a spec file
(the format is agents/e3-heartbeat-load/README.md's) holding each stream's first tick and its batches' bytes with
the offsets of their timestamps; the program streams them exactly as `heartbeat_loadgen` would (same ticks, skips
and sequence numbers) and prints the same figures as JSON. It does not move a stream whose controller fails: a run
that kills a controller (`--kill-after`) keeps the Python streams.
"""

import asyncio
import json
import os
import tempfile

SPEC_VERSION = "e3-heartbeat-load 1"


def spec_text(target: str, token: str, period_s: float, start_at: float, end_at: float, groups: list) -> str:
    """The spec of `groups` (lists of heartbeat_loadgen._WireBatch, one stream each), ticks from `start_at`."""
    period_ns = round(period_s * 1e9)
    lines = [SPEC_VERSION, f"target {target}", f"token {token}", f"period_ns {period_ns}",
             f"end_unix_ns {round(end_at * 1e9)}"]
    for g, group in enumerate(groups):
        lines.append(f"stream {round(start_at * 1e9) + period_ns * g // len(groups)}")
        for wire in group:
            lines.append(f"batch {wire.heartbeats} {bytes(wire.body).hex()} {','.join(map(str, wire.offsets))}")
            if wire.troubled is not None:
                troubled = wire.troubled
                lines.append(f"troubled {bytes(troubled.body).hex()} {','.join(map(str, troubled.offsets))}")
                lines.extend(f"window {round(a * 1e9)} {round(b * 1e9)}" for a, b in wire.windows)
    return "\n".join(lines) + "\n"


async def stream_natively(binary: str, text: str) -> dict:
    """Run the compiled generator on spec `text`; its figures (RuntimeError when it could not run at all)."""
    with tempfile.NamedTemporaryFile("w", prefix="e3-heartbeat-load-", suffix=".spec", delete=False) as f:
        f.write(text)
    try:
        proc = await asyncio.create_subprocess_exec(binary, "--spec", f.name, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.PIPE)
        out, err = await proc.communicate()
    finally:
        os.unlink(f.name)
    if proc.returncode not in (0, 1) or not out.strip():  # 1: some stream failed, its figures still printed
        raise RuntimeError(f"{os.path.basename(binary)} exited {proc.returncode}: {err.decode().strip()[-500:]}")
    return json.loads(out)
