"""The controllers' addresses as an emulated rack's programs see them: every one at the management bridge's
address and its own port, each checked to listen there first."""

import socket

import pytest

from e3.client.api import ClientError
from e3.core.embedded import free_tcp_port
from e3.emulation.rack_cluster import rack_controllers


@pytest.fixture
def listening():
    sockets = []

    def listen() -> int:
        s = socket.create_server(("127.0.0.1", 0))
        sockets.append(s)
        return s.getsockname()[1]

    yield listen
    for s in sockets:
        s.close()


def test_each_controller_of_a_list_is_reached_at_the_gateway_on_its_own_port(listening):
    a, b = listening(), listening()
    assert rack_controllers(f"10.9.9.9:{a}, 10.9.9.9:{b}", "127.0.0.1") == f"127.0.0.1:{a},127.0.0.1:{b}"
    assert rack_controllers(f"10.9.9.9:{a}", "127.0.0.1") == f"127.0.0.1:{a}"  # one controller: as before


def test_a_listed_controller_nothing_listens_for_is_named(listening):
    a, nobody = listening(), free_tcp_port()
    with pytest.raises(ClientError, match=f"reach the controller at 127.0.0.1:{nobody} .* nothing listens there"):
        rack_controllers(f"127.0.0.1:{a},127.0.0.1:{nobody}", "127.0.0.1")
