"""A network partition between one local agent and the controller, its data path left alone: the agents dial the
controller through a TCP proxy that forwards every connection until `cut(pid)`; from then on, connections of that
process (those open and any it opens later) carry nothing either way, as if its packets were dropped. The agent
keeps running and serving its instances; the controller hears nothing from it and marks its node down."""

import os
import re
import select
import socket
import threading

CHUNK = 65536


def _socket_inodes(pid: int) -> set[int]:
    inodes = set()
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            target = os.readlink(f"/proc/{pid}/fd/{fd}")
        except OSError:  # closed meanwhile
            continue
        if m := re.fullmatch(r"socket:\[(\d+)\]", target):
            inodes.add(int(m.group(1)))
    return inodes


def _owned_by(pid: int, local_port: int) -> bool:
    """Whether process `pid` holds the TCP socket whose local port is `local_port` (the proxy's peer)."""
    inodes = _socket_inodes(pid)
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        with open(table) as f:
            for line in f.readlines()[1:]:
                fields = line.split()
                if int(fields[1].rsplit(":", 1)[1], 16) == local_port and int(fields[9]) in inodes:
                    return True
    return False


class ControllerProxy:
    """Listens on 127.0.0.1 (any port) and forwards to `upstream` ("host:port"); `address` is what agents dial."""

    def __init__(self, upstream: str):
        host, port = upstream.rsplit(":", 1)
        self.upstream = (host, int(port))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.address = f"127.0.0.1:{self.listener.getsockname()[1]}"
        self.cut_pids: set[int] = set()
        self.generation = 0  # bumped by every cut: each connection then checks its owner once
        self.lock = threading.Lock()
        self.closed = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def cut(self, pid: int) -> None:
        """From now on, nothing moves on the connections of process `pid`."""
        with self.lock:
            self.cut_pids.add(pid)
            self.generation += 1

    def close(self) -> None:
        self.closed.set()
        self.listener.close()

    def _is_cut(self, peer_port: int) -> tuple[int, bool]:
        with self.lock:
            generation, pids = self.generation, set(self.cut_pids)
        return generation, any(_owned_by(pid, peer_port) for pid in pids)

    def _accept(self) -> None:
        while not self.closed.is_set():
            try:
                client, peer = self.listener.accept()
            except OSError:
                return
            try:
                server = socket.create_connection(self.upstream)
            except OSError:
                client.close()
                continue
            threading.Thread(target=self._pump, args=(client, server, peer[1]), daemon=True).start()

    def _pump(self, client: socket.socket, server: socket.socket, peer_port: int) -> None:
        """Forward both ways until either side closes; once the peer's process is cut, forward nothing more (the
        bytes stay unread, like dropped packets: no reset, no close)."""
        other = {client: server, server: client}
        cut, seen = False, -1
        try:
            while not self.closed.is_set():
                if not cut and seen != self.generation:
                    seen, cut = self._is_cut(peer_port)
                if cut:
                    self.closed.wait(0.2)
                    continue
                ready, _, _ = select.select([client, server], [], [], 0.2)
                for s in ready:
                    data = s.recv(CHUNK)
                    if not data:
                        return
                    other[s].sendall(data)
        except OSError:
            return
        finally:
            client.close()
            server.close()
