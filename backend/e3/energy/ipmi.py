"""A server's wall power from its BMC: IPMI DCMI "Get Power Reading" (docs/energy.md "IPMI DCMI").

The request (DCMI 1.5 §6.6.1): NetFn 0x2C (group extension), command 0x02, data
[0xDC (DCMI group), 0x01 (mode: system power statistics), 0x00, 0x00]. The response, after its completion
code: 0xDC, then current, minimum, maximum and average watts (16-bit little-endian each), a timestamp
(32-bit, seconds), the statistics period (32-bit, ms) and a state byte whose bit 6 says the measurement
is active. `parse_power_reading` accepts exactly that and nothing else: anything short, of another group,
with a completion code other than 0, or taken while the measurement is inactive raises `IpmiError` naming
what was wrong, so a caller never shows garbage or a frozen figure as a reading.

Two readers, one parser:
  - `LanReader`: out-of-band, IPMI 2.0 RMCP+ (lanplus) to the BMC's address, through pyghmi's client; the
    user and password come from a credentials file (`read_credentials`), never the command line or the DB;
  - `InBandReader`: the BMC of the machine itself through /dev/ipmi0, by `ipmitool -I open raw ...`,
    whose hex output goes through the same parser (untested on hardware here: no /dev/ipmi0).

Only the parsing and the credentials rules are pure; the readers do I/O (blocking: run them in a thread).
"""

import os
import stat
import struct
import subprocess
import threading
import time
from concurrent.futures import Future
from concurrent.futures import TimeoutError as FutureTimeout
from dataclasses import dataclass
from pathlib import Path

NETFN_DCMI = 0x2C
CMD_GET_POWER_READING = 0x02
DCMI_GROUP = 0xDC
MODE_SYSTEM_POWER = 0x01
REQUEST_DATA = (DCMI_GROUP, MODE_SYSTEM_POWER, 0x00, 0x00)
MEASUREMENT_ACTIVE = 0x40  # state byte, bit 6
_BODY = struct.Struct("<BHHHHIIB")  # group, current, min, max, avg, timestamp, period, state: 18 bytes
SOURCE = "ipmi"
INTERFACES = ("lanplus", "open")
MAX_USER_BYTES, MAX_PASSWORD_BYTES = 16, 20  # IPMI 2.0 user name and password limits  # out-of-band RMCP+ | in-band /dev/ipmi0


class IpmiError(Exception):
    """No honest reading: `reason` says why in words (for an event, a log line, a 422)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class PowerReading:
    current_watts: int
    minimum_watts: int
    maximum_watts: int
    average_watts: int
    timestamp: int  # the BMC's clock, seconds since the epoch (as the BMC keeps it: not trusted for age)
    period_ms: int  # the statistics' averaging period
    source: str = SOURCE


def request_bytes() -> bytes:
    """The whole request as sent: netfn, command, data."""
    return bytes((NETFN_DCMI, CMD_GET_POWER_READING, *REQUEST_DATA))


def parse_power_reading(data: bytes, completion_code: int = 0) -> PowerReading:
    """The reading in a response's data (after the completion code); IpmiError for anything else."""
    if completion_code != 0:
        raise IpmiError(f"the BMC answered completion code 0x{completion_code:02x} "
                        f"({_COMPLETION_CODES.get(completion_code, 'an error')})")
    if len(data) < _BODY.size:
        raise IpmiError(f"the power reading is {len(data)} bytes long, {_BODY.size} expected")
    group, current, low, high, avg, timestamp, period, state = _BODY.unpack_from(bytes(data))
    if group != DCMI_GROUP:
        raise IpmiError(f"group extension 0x{group:02x} in the answer, 0x{DCMI_GROUP:02x} (DCMI) expected")
    if not state & MEASUREMENT_ACTIVE:
        raise IpmiError(f"the BMC says its power measurement is not active (state byte 0x{state:02x})")
    return PowerReading(current, low, high, avg, timestamp, period)


_COMPLETION_CODES = {0xC1: "invalid command: no DCMI power reading on this BMC", 0xC3: "timeout",
                     0xCC: "invalid data field", 0xD4: "insufficient privilege", 0xD5: "not supported now"}


def parse_ipmitool_raw(output: str) -> PowerReading:
    """The reading from `ipmitool raw`'s output: hex bytes separated by blanks and line breaks (the data after
    the completion code; ipmitool reports a non-zero code on stderr and exits 1 instead)."""
    try:
        data = bytes(int(word, 16) for word in output.split())
    except ValueError:
        raise IpmiError(f"ipmitool printed something that is not hex bytes: {output.strip()[:80]!r}") from None
    return parse_power_reading(data)


# --- Credentials ------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Credentials:
    user: str
    password: str

    def __repr__(self) -> str:  # never a password in a log line
        return f"Credentials(user={self.user!r}, password=<hidden>)"


def check_credentials_file(path: str | Path) -> Path:
    """The file's path when it can hold credentials: a regular file, not readable or writable by group or
    others (like ssh's private keys). IpmiError saying why not."""
    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise IpmiError(f"credentials file {path} does not exist") from None
    except OSError as e:
        raise IpmiError(f"cannot read credentials file {path}: {e.strerror or e}") from None
    if not stat.S_ISREG(info.st_mode):
        raise IpmiError(f"credentials file {path} is not a regular file")
    if info.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise IpmiError(f"credentials file {path} is accessible by group or others "
                        f"(mode {stat.S_IMODE(info.st_mode):04o}); chmod 600 it")
    return path


def read_credentials(path: str | Path) -> Credentials:
    """The BMC user and password from `path`: two lines, the user then the password (the rest of the
    second line, blanks included; a trailing newline is not part of it). Checked first as
    `check_credentials_file`; IpmiError for a file that breaks the rules."""
    path = check_credentials_file(path)
    try:
        lines = path.read_text().split("\n")
    except (OSError, UnicodeDecodeError) as e:
        raise IpmiError(f"cannot read credentials file {path}: {getattr(e, 'strerror', None) or e}") from None
    user = lines[0].strip()
    password = lines[1].rstrip("\r") if len(lines) > 1 else ""
    if not user or not password:
        raise IpmiError(f"credentials file {path}: two lines expected, the user then the password")
    for what, value, limit in (("user", user, MAX_USER_BYTES), ("password", password, MAX_PASSWORD_BYTES)):
        if len(value.encode()) > limit:  # a BMC would cut it or refuse it: say so rather than fail later
            raise IpmiError(f"credentials file {path}: the {what} is {len(value.encode())} bytes long; IPMI 2.0 "
                            f"allows at most {limit}")
    return Credentials(user, password)


# --- Readers (blocking I/O) --------------------------------------------------------------------------
class LanReader:
    """Out-of-band: RMCP+ to a BMC's LAN port with pyghmi's client. Reads the credentials file at each
    reading, so a changed file (or a revoked password) takes effect at once.

    pyghmi retries a silent BMC for up to a minute, so each request runs in a thread of its own and `read`
    waits `timeout_s` for it: past that it raises (no answer). While that request is pending the next
    `read` raises at once rather than queueing more requests, for at most `abandon_after_s`: a request
    still pending then is abandoned (its session marked broken, so pyghmi neither hands it out again nor
    keeps waiting on it) and the reading starts over on a new session. A BMC that misses one answer, or a
    pyghmi call that never returns, costs readings for that long, not for good."""

    def __init__(self, address: str, port: int, credentials_file: str | Path, timeout_s: float = 2.0,
                 abandon_after_s: float = 20.0):
        self.address, self.port, self.credentials_file = address, port, credentials_file
        self.timeout_s, self.abandon_after_s = timeout_s, abandon_after_s
        self._lock = threading.Lock()
        self._pending: _Request | None = None
        self._session = None  # pyghmi's Command; only the request of the current generation may set it
        self._session_creds: Credentials | None = None
        self._generation = 0

    @property
    def where(self) -> str:
        return f"BMC {self.address}:{self.port}"

    def read(self) -> PowerReading:
        pending = self._pending
        if pending is not None and not pending.answer.done():
            if time.monotonic() - pending.started < self.abandon_after_s:
                raise IpmiError(f"{self.where}: no answer (the previous request is still unanswered)")
            self._abandon(pending)
        creds = read_credentials(self.credentials_file)
        request = _Request(self._generation, time.monotonic(), Future())
        self._pending = request
        threading.Thread(target=self._run, args=(request, creds), daemon=True,
                         name=f"ipmi-{self.address}:{self.port}").start()
        try:
            answer = request.answer.result(timeout=self.timeout_s)
        except FutureTimeout:
            raise IpmiError(f"{self.where}: no answer within {self.timeout_s:g} s") from None
        return parse_power_reading(bytes(answer.get("data", b"")), answer.get("code", 0))

    def _abandon(self, stuck: "_Request") -> None:
        with self._lock:
            self._generation += 1
            session, self._session = self._session, None
        _mark_broken(session)
        stuck.answer.cancel()

    def _run(self, request: "_Request", creds: Credentials) -> None:
        try:
            answer = self._ask(request.generation, creds)
        except BaseException as e:  # the reader raises it
            if not request.answer.done():
                request.answer.set_exception(e)
            return
        if not request.answer.done():
            request.answer.set_result(answer)

    def _ask(self, generation: int, creds: Credentials) -> dict:
        from pyghmi import exceptions as pyghmi_errors
        from pyghmi.ipmi import command

        # One session, kept while it works and the credentials stay the same: pyghmi hangs when a second
        # Command is made for a session it already holds, and a real BMC has few session slots.
        session = self._session_for(generation, creds)
        if session is None:
            try:
                session = command.Command(bmc=self.address, userid=creds.user, password=creds.password,
                                          port=self.port, keepalive=False)
            except pyghmi_errors.IpmiException as e:
                raise IpmiError(f"{self.where}: {_describe_session_error(str(e))}") from None
            except OSError as e:
                raise IpmiError(f"{self.where}: {e.strerror or e}") from None
            self._keep_session(generation, session, creds)
        try:
            # a short first wait: pyghmi's client sometimes misses the first answer of a session (seen on
            # loopback against pyghmi's server), and its resend is what then gets through
            answer = session.raw_command(netfn=NETFN_DCMI, command=CMD_GET_POWER_READING,
                                         data=REQUEST_DATA, timeout=min(0.5, self.timeout_s / 4))
        except (pyghmi_errors.IpmiException, OSError) as e:
            self._keep_session(generation, None, None)
            raise IpmiError(f"{self.where}: {_describe_session_error(str(e))}") from None
        if not isinstance(answer, dict) or answer.get("code") == 0xFFFF:  # 0xFFFF: pyghmi's own timeout
            self._keep_session(generation, None, None)
            raise IpmiError(f"{self.where}: no answer")
        if "error" in answer and not answer.get("code"):
            raise IpmiError(f"{self.where}: {answer['error']}")
        return answer

    def _session_for(self, generation: int, creds: Credentials):
        with self._lock:
            if generation == self._generation and self._session_creds == creds:
                return self._session
            return None

    def _keep_session(self, generation: int, session, creds: Credentials | None) -> None:
        """Keep (or, with None, forget) the session, unless this request was abandoned meanwhile."""
        with self._lock:
            if generation == self._generation:
                self._session, self._session_creds = session, creds

    def close(self) -> None:
        pending = self._pending
        if pending is not None and not pending.answer.done():
            self._abandon(pending)


@dataclass(frozen=True)
class _Request:
    generation: int
    started: float  # time.monotonic()
    answer: Future


def _mark_broken(session) -> None:
    """Tell pyghmi to give up a session: its waits end and its cache no longer hands it out."""
    ipmi_session = getattr(session, "ipmi_session", None)
    if ipmi_session is None:
        return
    try:
        ipmi_session._mark_broken()  # pyghmi's own way out of a failed session (no public one)
    except Exception:  # noqa: BLE001 - a session already gone is what we want
        pass


def _describe_session_error(message: str) -> str:
    lowered = message.lower()
    if "unauthorized" in lowered or "incorrect password" in lowered or "rakp" in lowered:
        return f"the BMC refused the credentials ({message})"
    if lowered in ("", "none") or "timeout" in lowered or "timed out" in lowered or "no longer connected" in lowered:
        return f"no answer ({message})"
    return message


class InBandReader:
    """In-band: the local BMC through /dev/ipmi0 (the kernel's ipmi_si/ipmi_devintf), with ipmitool's open
    interface. Untested on hardware here: only its output parsing is (there is no /dev/ipmi0)."""

    def __init__(self, ipmitool: str = "ipmitool", timeout_s: float = 2.0):
        self.ipmitool, self.timeout_s = ipmitool, timeout_s

    def command(self) -> list[str]:
        return [self.ipmitool, "-I", "open", "raw", *(f"0x{b:02x}" for b in request_bytes())]

    def read(self) -> PowerReading:
        try:
            done = subprocess.run(self.command(), capture_output=True, text=True, timeout=self.timeout_s,
                                  env={**os.environ, "LC_ALL": "C"})
        except FileNotFoundError:
            raise IpmiError(f"{self.ipmitool} is not installed") from None
        except subprocess.TimeoutExpired:
            raise IpmiError(f"no answer from /dev/ipmi0 within {self.timeout_s:g} s") from None
        if done.returncode != 0:
            raise IpmiError(f"ipmitool failed: {(done.stderr or done.stdout).strip()[:200]}")
        return parse_ipmitool_raw(done.stdout)
