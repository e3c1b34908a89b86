"""Requests to an instance over UDP in the agents' framing (agents/e3-agent/src/chan.h).

Header, network byte order, 20 bytes: magic "E3C1" | u8 type (1 request, 2 reply) | u8 status
(0 ok, 1 error) | u16 zero | u32 instance id (0: the instance on the port) | u64 request id.
A request to a pipeline is text lines: the instance's service handles the first, the rest goes
downstream (docs/agents.md, "Request pipeline").
"""

import os
import socket
import struct
from dataclasses import dataclass

HEADER = struct.Struct("!4sBBHIQ")
MAGIC = b"E3C1"
REQUEST, REPLY = 1, 2
MAX_PAYLOAD = 65507 - HEADER.size


class RequestFailed(Exception):
    pass


@dataclass(frozen=True)
class Reply:
    ok: bool
    body: bytes


def frame(request_id: int, payload: bytes, instance_id: int = 0) -> bytes:
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes (at most {MAX_PAYLOAD})")
    return HEADER.pack(MAGIC, REQUEST, 0, 0, instance_id, request_id) + payload


def parse_reply(datagram: bytes, request_id: int) -> Reply | None:
    """The reply in `datagram` if it answers `request_id`, else None (stray or malformed)."""
    if len(datagram) < HEADER.size:
        return None
    magic, kind, status, _, _, rid = HEADER.unpack_from(datagram)
    if magic != MAGIC or kind != REPLY or rid != request_id:
        return None
    return Reply(status == 0, datagram[HEADER.size:])


def send(address: str, port: int, payload: bytes, timeout_s: float = 2.0) -> Reply:
    """One request, one reply; RequestFailed when nothing answers within `timeout_s`."""
    request_id = int.from_bytes(os.urandom(8), "big")
    family = socket.AF_INET6 if ":" in address else socket.AF_INET
    with socket.socket(family, socket.SOCK_DGRAM) as sock:
        sock.settimeout(timeout_s)
        sock.sendto(frame(request_id, payload), (address, port))
        while True:
            try:
                datagram, _ = sock.recvfrom(65535)
            except TimeoutError:
                raise RequestFailed(f"no reply from {address}:{port} within {timeout_s} s") from None
            reply = parse_reply(datagram, request_id)
            if reply is not None:
                return reply
