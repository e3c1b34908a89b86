"""Child processes that must not outlive the command that started them."""

import ctypes
import signal


def die_with_parent() -> None:
    """preexec_fn: the child gets SIGTERM if its parent dies, even by SIGKILL (Linux PR_SET_PDEATHSIG)."""
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)
