"""The DCMI power reading parser (good answers and each kind of garbage) and the credentials file rules."""

import os
import struct

import pytest

from e3.energy import ipmi
from e3.energy.ipmi import IpmiError, parse_ipmitool_raw, parse_power_reading, read_credentials


def reading(current=350, low=300, high=400, avg=340, stamp=1_700_000_000, period=1000, state=0x40, group=0xDC):
    return struct.pack("<BHHHHIIB", group, current, low, high, avg, stamp, period, state)


def test_the_request_is_dcmi_get_power_reading_system_statistics():
    assert ipmi.request_bytes() == bytes([0x2C, 0x02, 0xDC, 0x01, 0x00, 0x00])


def test_a_good_reading_gives_its_watts_little_endian():
    r = parse_power_reading(reading(current=0x1234, low=1, high=0xFFFF, avg=258))
    assert (r.current_watts, r.minimum_watts, r.maximum_watts, r.average_watts) == (0x1234, 1, 0xFFFF, 258)
    assert (r.timestamp, r.period_ms, r.source) == (1_700_000_000, 1000, "ipmi")


@pytest.mark.parametrize(("data", "code", "says"), [
    (reading()[:17], 0, "17 bytes long, 18 expected"),
    (b"", 0, "0 bytes long"),
    (reading(group=0x42), 0, "group extension 0x42"),
    (reading(state=0x00), 0, "not active"),
    (reading(state=0xBF), 0, "not active"),  # every bit but 6
    (reading(), 0xC1, "completion code 0xc1 (invalid command"),
    (reading(), 0xD4, "0xd4 (insufficient privilege)"),
])
def test_garbage_is_refused_saying_what_was_wrong(data, code, says):
    with pytest.raises(IpmiError) as refused:
        parse_power_reading(data, code)
    assert says in refused.value.reason


def test_ipmitool_raw_output_goes_through_the_same_parser():
    text = " ".join(f"{b:02x}" for b in reading(current=417))
    wrapped = text[:48] + "\n " + text[48:] + "\n"  # ipmitool breaks its lines every 16 bytes
    assert parse_ipmitool_raw(wrapped).current_watts == 417
    with pytest.raises(IpmiError, match="not hex bytes"):
        parse_ipmitool_raw("Unable to send RAW command")
    with pytest.raises(IpmiError, match="group extension"):
        parse_ipmitool_raw(" ".join(f"{b:02x}" for b in reading(group=0)))


def test_the_in_band_reader_asks_ipmitool_open_the_same_bytes():
    assert ipmi.InBandReader().command() == ["ipmitool", "-I", "open", "raw", "0x2c", "0x02", "0xdc", "0x01",
                                             "0x00", "0x00"]
    with pytest.raises(IpmiError, match="is not installed"):
        ipmi.InBandReader(ipmitool="/nonexistent/ipmitool").read()


def _file(tmp_path, text, mode=0o600):
    path = tmp_path / "bmc.cred"
    path.write_text(text)
    os.chmod(path, mode)
    return path


def test_credentials_are_two_lines_user_then_password(tmp_path):
    creds = read_credentials(_file(tmp_path, "admin\n pass word \n"))
    assert (creds.user, creds.password) == ("admin", " pass word ")
    assert "pass word" not in repr(creds)


@pytest.mark.parametrize("mode", [0o640, 0o604, 0o620, 0o660, 0o644])
def test_a_credentials_file_others_can_read_is_refused(tmp_path, mode):
    with pytest.raises(IpmiError, match=f"accessible by group or others \\(mode {mode:04o}\\); chmod 600"):
        read_credentials(_file(tmp_path, "admin\nsecret\n", mode))


def test_a_missing_or_incomplete_credentials_file_is_refused(tmp_path):
    with pytest.raises(IpmiError, match="does not exist"):
        read_credentials(tmp_path / "nope")
    with pytest.raises(IpmiError, match="two lines expected"):
        read_credentials(_file(tmp_path, "admin\n"))
    with pytest.raises(IpmiError, match="the password is 21 bytes long; IPMI 2.0 allows at most 20"):
        read_credentials(_file(tmp_path, "admin\n" + "p" * 21 + "\n"))
    with pytest.raises(IpmiError, match="the user is 17 bytes long"):
        read_credentials(_file(tmp_path, "u" * 17 + "\nsecret\n"))
    with pytest.raises(IpmiError, match="not a regular file"):
        read_credentials(tmp_path)


def test_a_request_that_never_returns_is_abandoned_and_reading_starts_over(tmp_path, monkeypatch):
    """pyghmi's call may never return: the reader refuses to pile up requests behind it, but only for
    `abandon_after_s`; then a new request (a new session) reads again. The stuck call, when it ends at last,
    does not overwrite the new session."""
    import threading
    import time

    creds = tmp_path / "bmc.cred"
    creds.touch(mode=0o600)
    creds.write_text("admin\nsecret\n")
    reader = ipmi.LanReader("127.0.0.1", 9, creds, timeout_s=0.2, abandon_after_s=0.6)
    release, calls = threading.Event(), []

    def ask(generation, _creds):
        calls.append(generation)
        if len(calls) == 1:
            release.wait(10)  # pyghmi stuck
            reader._keep_session(generation, "stale session", _creds)
            return {"code": 0, "data": reading(current=111)}
        return {"code": 0, "data": reading(current=222)}

    monkeypatch.setattr(reader, "_ask", ask)
    with pytest.raises(IpmiError, match="no answer within"):
        reader.read()
    with pytest.raises(IpmiError, match="still unanswered"):
        reader.read()
    assert calls == [0]  # no second request queued behind the stuck one
    time.sleep(0.7)
    assert reader.read().current_watts == 222
    assert calls == [0, 1]
    release.set()
    time.sleep(0.1)
    assert reader._session is None  # the abandoned request kept nothing
    reader.close()
