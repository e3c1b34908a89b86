"""E3_CONTROLLER_ADDRESSES, the controllers the agents E3 starts are given: unset, the one controller; a list is
normalised; bad input is refused at start-up, naming the setting and the address at fault."""

import pytest
from pydantic import ValidationError

from e3.core.config import Settings


def test_a_bad_e3_controller_addresses_is_refused_naming_it():
    assert Settings(E3_CONTROLLER_PORT="50052").agent_controllers == "127.0.0.1:50052"  # unset: the one controller
    assert Settings(E3_CONTROLLER_ADDRESSES=" a:1, b:2").agent_controllers == "a:1,b:2"
    for bad, why in [("a:1,,b:2", "address 2 is empty"), ("a:1,b", "address 2 \\('b'\\) is not host:port"),
                     ("a:99999", "is not host:port"), (",".join(f"h:{i}" for i in range(1, 18)), "at most 16"),
                     ("h" * 300 + ":1", "longer than 255")]:
        with pytest.raises(ValidationError, match=f"E3_CONTROLLER_ADDRESSES(.|\\n)*{why}"):
            Settings(E3_CONTROLLER_ADDRESSES=bad)


def test_e3_controllers_gives_the_agents_every_controller_e3_up_starts_on_consecutive_ports():
    three = Settings(E3_CONTROLLERS="3", E3_CONTROLLER_PORT="50060")
    assert three.controller_ports == [50060, 50061, 50062]
    assert three.agent_controllers == "127.0.0.1:50060,127.0.0.1:50061,127.0.0.1:50062"
    # an explicit list wins: the agents may be meant to reach them some other way
    assert Settings(E3_CONTROLLERS="2", E3_CONTROLLER_ADDRESSES="a:1,b:2").agent_controllers == "a:1,b:2"
    for bad, why in [("0", "greater than or equal to 1"), ("17", "less than or equal to 16"), ("two", "integer")]:
        with pytest.raises(ValidationError, match=f"E3_CONTROLLERS(.|\\n)*{why}"):
            Settings(E3_CONTROLLERS=bad)
    with pytest.raises(ValidationError, match="E3_CONTROLLERS=3 from E3_CONTROLLER_PORT=65534 needs ports past 65535"):
        Settings(E3_CONTROLLERS="3", E3_CONTROLLER_PORT="65534")
