"""An emulated BMC that speaks real IPMI 2.0 over LAN (RMCP+, the lanplus of ipmitool) and answers DCMI
"Get Power Reading" (docs/energy.md "IPMI DCMI").

Built on pyghmi's BMC server (session set-up, RAKP authentication, integrity and confidentiality are
pyghmi's); this adds the one DCMI command E3 asks. Any standard client reads it:

    python -m e3.emulation.bmc_sim --port 9623 --credentials-file bmc.cred --watts-file watts
    ipmitool -I lanplus -H 127.0.0.1 -p 9623 -U admin -f passfile dcmi power reading

The watts file is read at each request, so a test changes the answer while the BMC runs. It holds the
server's wall power in watts (a number), or one word that makes the BMC misbehave:

    silent    no answer at all (a hung BMC): the client times out
    garbage   a reply that is not a DCMI power reading (wrong group id, too short)
    inactive  a well-formed reading whose state says the measurement is not active
    invalid   completion code 0xC1, "invalid command" (a BMC without DCMI)

Wrong credentials need no mode: the session is refused natively (RAKP) when the client's user or password
is not the one in the BMC's credentials file (the same two-line format as E3's, e3.energy.ipmi).
"""

import argparse
import logging
import os
import struct
import sys
import time
from pathlib import Path

from pyghmi.ipmi import bmc
from pyghmi.ipmi.private import constants, serversession

from e3.energy import ipmi

log = logging.getLogger(__name__)
STATE_ACTIVE = ipmi.MEASUREMENT_ACTIVE
MODES = ("silent", "garbage", "inactive", "invalid")


def power_reading_response(watts: int, period_ms: int = 1000, active: bool = True, now: float | None = None) -> list[int]:
    """The response data (after the completion code) of a DCMI power reading of `watts`: min, max and
    average are the current figure (one sample)."""
    watts = max(0, min(0xFFFF, int(round(watts))))
    stamp = int(time.time() if now is None else now) & 0xFFFFFFFF
    body = struct.pack("<BHHHHIIB", ipmi.DCMI_GROUP, watts, watts, watts, watts, stamp, period_ms,
                       STATE_ACTIVE if active else 0)
    return list(body)


# RMCP+ status codes (IPMI 2.0 table 13-15)
NO_CIPHER_SUITE_MATCH = 0x11
UNAUTHORIZED_NAME = 0x0D
HMAC_SHA1 = 1  # authentication algorithm of cipher suite 3, the one pyghmi's server implements


class HonestSession(serversession.ServerSession):
    """pyghmi's server session, but it refuses what it cannot do as a real BMC does, instead of pretending.

    pyghmi's server always answers cipher suite 3 (HMAC-SHA1) whatever the client proposed; a client that
    proposed SHA-256 (pyghmi's own client does, first) then fails on a hash of the wrong length. A real BMC
    answers "no cipher suite match" and the client retries with SHA-1 (ipmitool and pyghmi both do). And an
    unknown user gets RAKP status "unauthorized name" rather than silence, so a client says why at once."""

    def create_open_session_response(self, request):
        if request[12] != HMAC_SHA1:  # the proposed authentication algorithm (its payload starts at byte 8)
            self.clientsessionid = request[4:8]
            self.managedsessionid = os.urandom(4)
            return bytearray([request[0], NO_CIPHER_SUITE_MATCH, 0, 0]) + request[4:8]
        return super().create_open_session_response(request)

    def _got_rakp1(self, data):
        namepresent = data[27]
        if namepresent and self.authdata.get(bytes(data[28:]).decode("utf-8", "replace")) is None:
            refusal = bytearray([data[0], UNAUTHORIZED_NAME, 0, 0]) + self.clientsessionid
            return self.send_payload(refusal, constants.payload_types["rakp2"], retry=False)
        return super()._got_rakp1(data)


class PowerBmc(bmc.Bmc):
    """A BMC whose only sensor is the server's wall power, from `watts_file` (module doc)."""

    def __init__(self, authdata: dict, port: int, watts_file: Path, address: str = "127.0.0.1"):
        super().__init__(authdata, port=port, address=address)
        self.watts_file = watts_file

    def _answer(self) -> str:
        try:
            return self.watts_file.read_text().strip()
        except OSError:
            return "silent"

    def sessionless_data(self, data, sockaddr):
        data = bytearray(data)
        opens_session = len(data) >= 22 and data[0] == 6 and data[2:4] == b"\xff\x07" and data[4:6] == b"\x06\x10"
        if opens_session:  # an RMCP+ open session request: our session class (as IpmiServer would its own)
            HonestSession(self.authdata, self.kg, sockaddr, self.serversocket, data[16:], self.uuid, bmc=self)
            return None
        return super().sessionless_data(data, sockaddr)

    def handle_raw_request(self, request, session):
        if request["netfn"] == ipmi.NETFN_DCMI and request["command"] == ipmi.CMD_GET_POWER_READING:
            return self.power_reading(request, session)
        return super().handle_raw_request(request, session)

    def power_reading(self, request, session) -> None:
        data = list(request.get("data") or [])
        if data[:1] != [ipmi.DCMI_GROUP]:
            return session.send_ipmi_response(code=0xCC)  # invalid data field
        answer = self._answer()
        if answer == "silent":
            return None
        if answer == "garbage":
            return session.send_ipmi_response(data=[0x42, 0x01, 0x02])
        if answer == "invalid":
            return session.send_ipmi_response(code=0xC1)
        if answer == "inactive":
            return session.send_ipmi_response(data=power_reading_response(0, active=False))
        try:
            watts = float(answer)
        except ValueError:
            return None  # a half-written file: say nothing rather than a wrong figure
        session.send_ipmi_response(data=power_reading_response(watts))

    # chassis status (ipmitool asks it on some paths): the server is on
    def get_power_state(self):
        return "on"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m e3.emulation.bmc_sim", description=__doc__.split("\n\n")[0])
    parser.add_argument("--address", default="127.0.0.1", help="address to listen on (UDP)")
    parser.add_argument("--port", type=int, default=623, help="UDP port (623 is IPMI's)")
    parser.add_argument("--credentials-file", required=True,
                        help="the BMC's one user: two lines, user then password; mode 600")
    parser.add_argument("--watts-file", required=True, help="the server's watts, or a fault mode (module doc)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s bmc-sim %(message)s")
    try:
        creds = ipmi.read_credentials(args.credentials_file)
    except ipmi.IpmiError as e:
        print(f"bmc_sim: {e.reason}", file=sys.stderr)
        return 2
    server = PowerBmc({creds.user: creds.password}, args.port, Path(args.watts_file), args.address)
    log.info("listening on %s:%d (UDP), user %s", args.address, args.port, creds.user)
    print(f"bmc_sim listening on {args.address}:{args.port}", flush=True)
    server.listen()
    return 0


if __name__ == "__main__":
    sys.exit(main())
