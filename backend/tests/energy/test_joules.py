"""Joules per request, the one definition (e3.energy.joules): energy over an interval / requests in it."""

import pytest

from e3.energy.joules import joules_per_request, joules_per_request_over, requests_per_joule


def test_energy_over_an_interval_divided_by_its_requests():
    assert joules_per_request_over(1200.0, 400) == pytest.approx(3.0)  # 1.2 kJ over 400 requests
    assert joules_per_request_over(0.0, 10) == 0.0  # no energy spent is a figure, not a gap


def test_the_rate_form_agrees_with_the_interval_form():
    # 300 W at 6000 req/s for 10 s: 3000 J over 60000 requests
    assert joules_per_request(300.0, 6000.0) == pytest.approx(joules_per_request_over(3000.0, 60000))
    assert joules_per_request(300.0, 6000.0) == pytest.approx(0.05)


@pytest.mark.parametrize("watts, rps", [(300.0, None), (300.0, 0.0), (None, 100.0), (None, None), (5.0, -1.0)])
def test_no_per_request_figure_without_requests_or_energy(watts, rps):
    assert joules_per_request(watts, rps) is None


def test_requests_per_joule_is_the_inverse_and_needs_power():
    assert requests_per_joule(300.0, 6000.0) == pytest.approx(1 / joules_per_request(300.0, 6000.0))
    assert requests_per_joule(300.0, 0.0) == 0.0  # power but nothing served
    assert requests_per_joule(0.0, 6000.0) is None
    assert requests_per_joule(None, 6000.0) is None
    assert requests_per_joule(300.0, None) is None
