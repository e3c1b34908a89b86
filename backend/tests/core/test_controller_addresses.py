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
