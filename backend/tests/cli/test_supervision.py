"""`e3 up`'s supervision (issue 19, item 7) on real processes: one that keeps crashing is started again after a
back-off that doubles up to its cap and starts afresh once it stayed up; every exit and restart is recorded.
(The clock is the test's, so that no test waits half a minute; the processes are real `python -m e3`.)"""

import os

from e3.cli import supervision
from e3.cli.supervision import Child, Supervisor


class Clock:
    def __init__(self):
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_issue19_item7_a_crashing_process_is_restarted_with_a_doubling_back_off(tmp_path):
    clock, recorded = Clock(), []
    crashing = Child("crashing", ["no-such-command"], dict(os.environ), tmp_path / "crashing.log")  # a usage error
    supervisor = Supervisor(lambda kind, name, data: recorded.append((kind, name, data)), clock=clock)
    crashing.start()
    supervisor.add(crashing)
    delays, pids = [], [crashing.pid]
    for _ in range(8):
        crashing.proc.wait(60)
        supervisor.check()
        kind, name, data = recorded[-1]
        assert (kind, name, data["pid"]) == ("process.exited", "crashing", pids[-1]) and data["exit_code"] > 0
        delays.append(data["restart_in_s"])
        clock.now += data["restart_in_s"] - 0.01
        supervisor.check()
        assert recorded[-1][0] == "process.exited"  # not yet: the back-off has not passed
        clock.now += 0.01
        supervisor.check()
        kind, name, data = recorded[-1]
        assert kind == "process.restarted" and data["pid"] == crashing.pid != pids[-1]
        assert data["restarts"] == len(pids) and abs(data["down_s"] - delays[-1]) < 1e-6
        pids.append(crashing.pid)
    assert delays == [0.5, 1, 2, 4, 8, 16, 30, 30]
    # After a minute up, a crash is a new one: the back-off starts again from its first step.
    clock.now += supervision.STABLE_S
    crashing.proc.wait(60)
    supervisor.check()
    assert recorded[-1][0] == "process.exited" and recorded[-1][2]["restart_in_s"] == 0.5
    crashing.proc = None  # nothing left running

