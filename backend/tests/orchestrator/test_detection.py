"""Detection over recorded heartbeat sequences: standing queues, overload, noise, hysteresis and cool-down."""

import random

import pytest

from e3.orchestrator.detection import (HOST_STARVATION, OVERLOAD, DetectionPolicy, Detector, InstanceSample,
                                       NodeSample)

PERIOD = 0.050
BW = 10_000  # Mb/s, a type2 SmartNIC's share of the server's ports
WARMUP = DetectionPolicy().warmup_heartbeats


class Recording:
    """Heartbeats of one NIC, 50 ms apart, with byte counters that advance at the utilisation asked for."""

    def __init__(self, node_id="nic0", t=1000.0):
        self.node_id, self.t, self.rx, self.tx = node_id, t, 10**9, 10**9

    def next(self, queue=0, util=0.3, instances=()) -> NodeSample:
        self.t += PERIOD
        step = int(util * BW * 1e6 / 8 * PERIOD)
        self.rx += step
        self.tx += step // 2
        return NodeSample(self.node_id, self.t, queue, self.rx, self.tx, BW, tuple(instances))


def steady(iid="a", exec_us=100.0, share=0.5, requests=500):
    return InstanceSample(iid, exec_us, 100.0, share, requests)


def feed(detector, samples):
    """(index, detection) for every heartbeat that produced one."""
    return [(i, d) for i, s in enumerate(samples) if (d := detector.observe(s)) is not None]


def warm_up(detector, rec, instances=(steady("a"),)):
    """The instances' warm-up: WARMUP heartbeats with traffic at their normal execution time, nothing judged."""
    assert feed(detector, [rec.next(instances=instances) for _ in range(WARMUP)]) == []


def test_standing_queue_with_idle_link_is_starvation_within_three_heartbeats():
    rec = Recording()
    samples = [rec.next() for _ in range(5)] + [rec.next(queue=200, util=0.25) for _ in range(10)]
    found = feed(Detector(), samples)
    assert [i for i, _ in found] == [7]  # the third heartbeat with the standing queue
    d = found[0][1]
    assert d.kind == HOST_STARVATION and d.node_id == "nic0" and d.instance_id is None
    assert d.detail["queue_lengths"] == [200, 200, 200]
    assert d.detail["bandwidth_util"] == [0.25, 0.25, 0.25]


def test_standing_queue_at_line_rate_is_saturation_not_starvation():
    rec = Recording()
    samples = [rec.next() for _ in range(3)] + [rec.next(queue=500, util=0.95) for _ in range(200)]
    assert feed(Detector(), samples) == []


def test_first_heartbeats_and_counter_resets_do_not_count():
    rec = Recording()
    samples = [rec.next(queue=200, util=0.1) for _ in range(3)]
    # The first heartbeat has no rate: the window is full only at the fourth.
    assert [i for i, _ in feed(Detector(), samples + [rec.next(queue=200, util=0.1)])] == [3]
    # An agent restart resets the counters: that interval is unknown and breaks the streak.
    det = Detector()
    feed(det, samples)
    rec.rx, rec.tx = 0, 0
    assert det.observe(rec.next(queue=200, util=0.1)) is None
    assert feed(det, [rec.next(queue=200, util=0.1) for _ in range(2)]) == []
    assert [i for i, _ in feed(det, [rec.next(queue=200, util=0.1)])] == [0]


def test_bursty_noise_never_triggers():
    rng = random.Random(7)
    rec = Recording()
    det = Detector()
    samples = []
    for k in range(2000):
        # queue spikes every other heartbeat, exec times jitter within +-15% of the EMA
        insts = [InstanceSample(f"i{j}", 100.0 * (1 + rng.uniform(-0.15, 0.15)), 100.0, 0.2, rng.randint(0, 50))
                 for j in range(4)]
        samples.append(rec.next(queue=300 if k % 2 else rng.randint(0, 31), util=rng.uniform(0.05, 0.6),
                                instances=insts))
    assert feed(det, samples) == []


def test_overload_of_30_percent_is_detected_on_the_third_heartbeat():
    rec = Recording()
    det = Detector()
    warm_up(det, rec, [steady("a"), steady("b", share=0.3)])
    over = [rec.next(instances=[steady("a", exec_us=130.0, share=0.7), steady("b", share=0.2)]) for _ in range(3)]
    found = feed(det, over)
    assert [i for i, _ in found] == [2]
    d = found[0][1]
    assert d.kind == OVERLOAD and d.instance_id == "a" and d.t == pytest.approx(over[2].t)
    assert d.detail["deviation"] == pytest.approx(0.30) and d.detail["cpu_shares"] == {"a": 0.7, "b": 0.2}


def test_overload_needs_requests_and_a_slower_not_faster_instance():
    for slower in ([steady("a", exec_us=300.0, requests=1)] * 10,  # idle: 1 request per heartbeat
                   [steady("a", exec_us=50.0)] * 10,  # faster
                   [steady("a", exec_us=130.0)] * 2 + [steady("a")] + [steady("a", exec_us=130.0)] * 2):  # broken
        rec = Recording()
        det = Detector()
        warm_up(det, rec)
        assert feed(det, [rec.next(instances=[i]) for i in slower]) == []


def test_a_fresh_idle_instance_is_never_judged():
    """Issue 19, item 8: a freshly deployed instance sent nothing has no baseline and is never overloaded, whatever
    its agent reports as its execution time (the EMA of requests it never had, or a figure left over)."""
    rec = Recording()
    det = Detector()
    idle = [InstanceSample("kv", 900.0, 1.0, 0.0, 0), InstanceSample("kv", 5000.0, 1.0, 0.0, 1)]
    assert feed(det, [rec.next(instances=[idle[k % 2]]) for k in range(2000)]) == []  # 100 s idle
    # still warming up after the idle heartbeats: its first WARMUP heartbeats with traffic are its baseline
    assert feed(det, [rec.next(instances=[steady("kv", exec_us=150.0)]) for _ in range(WARMUP)]) == []


def test_nothing_is_judged_before_the_warm_up_then_a_real_overload_is():
    rec = Recording()
    det = Detector()
    # a startup transient: the first heartbeats with traffic are slow then fast (cold caches, first allocations)
    transient = [steady("a", exec_us=40.0 if k < 3 else 100.0 + (k % 3)) for k in range(WARMUP)]
    assert feed(det, [rec.next(instances=[i]) for i in transient]) == []
    baseline = sum(i.exec_time_us for i in transient) / WARMUP
    found = feed(det, [rec.next(instances=[steady("a", exec_us=150.0)]) for _ in range(3)])
    assert [i for i, _ in found] == [2]
    assert found[0][1].detail["baseline_us"] == pytest.approx(baseline, abs=1e-3)
    # with one heartbeat fewer in the warm-up, the same overload is part of the baseline, not a verdict
    rec, det = Recording(), Detector()
    feed(det, [rec.next(instances=[i]) for i in transient[:-1]])
    assert feed(det, [rec.next(instances=[steady("a", exec_us=150.0)]) for _ in range(3)]) == []


def test_light_use_wobble_after_the_warm_up_is_noise_not_overload():
    """Issue 19: on the loaded CI machine a kvs written one request at a time (a few hundred requests per
    heartbeat, under 1% of a core, at most one packet waiting) stayed 25% above its baseline, 1.38 -> 1.73 us,
    for 3 heartbeats after its warm-up, and was reported and moved. Below the noise floor: never judged."""
    rec = Recording()
    det = Detector()
    light = [InstanceSample("kv", 1.38, 1.38, 0.004, 300)]
    wobble = [InstanceSample("kv", 1.73, 1.70, 0.005, 300)]
    warm_up(det, rec, light)
    seq = [rec.next(queue=k % 2, instances=wobble) for k in range(40)]  # 2 s of it, queue 0 or 1
    seq += [rec.next(queue=1, instances=light if k % 2 else wobble) for k in range(400)]
    assert feed(det, seq) == []


def test_a_cheap_service_slowed_while_requests_wait_is_still_overloaded():
    """The same +0.35 us with requests waiting at the NIC (a kvs driven past its NIC's capacity on the emulated
    rack: queues of 20-60 packets seen, in some heartbeats only): overload, on the third heartbeat."""
    rec = Recording()
    det = Detector()
    warm_up(det, rec, [InstanceSample("kv", 1.38, 1.38, 0.004, 300)])
    slow = [InstanceSample("kv", 1.73, 1.70, 0.03, 1500)]
    found = feed(det, [rec.next(queue=q, instances=slow) for q in (40, 0, 0, 0)])
    assert [i for i, _ in found] == [2]
    assert found[0][1].detail["queue_peak"] == 40 and found[0][1].instance_id == "kv"
    # the floor is the operator's: with none, the wobble alone is judged as before
    rec, det = Recording(), Detector(DetectionPolicy(overload_floor_us=0))
    warm_up(det, rec, [InstanceSample("kv", 1.38, 1.38, 0.004, 300)])
    assert [i for i, _ in feed(det, [rec.next(instances=slow) for _ in range(3)])] == [2]


def test_baseline_is_per_heartbeat_not_the_agents_per_request_ema():
    """The agent's EMA is per request: under a lasting slowdown it has caught up within the heartbeat, so
    the detector compares with its own baseline, which learns from heartbeats (and not from a streak)."""
    rec = Recording()
    det = Detector()
    warm_up(det, rec)
    # a step to 125 us; the agent's EMA follows within the heartbeat (what e3-agent reports)
    over = [rec.next(instances=[InstanceSample("a", 125.0, 124.0, 0.5, 500)]) for _ in range(40)]
    found = feed(det, over)
    assert [i for i, _ in found] == [2]
    assert found[0][1].detail["baseline_us"] == pytest.approx(100.0) and found[0][1].detail["agent_ema_us"] == 124.0
    # once reported, the new level is learnt: it clears, and the same level later is no overload
    assert feed(det, [rec.next(instances=[InstanceSample("a", 125.0, 125.0, 0.5, 500)]) for _ in range(200)]) == []


def test_baseline_learns_a_slow_drift():
    rec = Recording()
    drift = [rec.next(instances=[InstanceSample("a", 100.0 * 1.01 ** k, 100.0, 0.5, 500)]) for k in range(100)]
    assert feed(Detector(), drift) == []  # +1% per heartbeat, 2.7x in 5 s: followed, never 20% behind


def test_condition_that_stays_is_reported_once():
    rec = Recording()
    det = Detector(DetectionPolicy(cooldown_s=4.975))  # ends between two heartbeats, clear of float sums
    warm_up(det, rec)
    samples = [rec.next(queue=100, util=0.2, instances=[steady("a", exec_us=150.0)]) for _ in range(400)]  # 20 s
    found = feed(det, samples)
    # both at the 3rd heartbeat, starvation first; the overload is held back by the node's cool-down and
    # reported when it ends, 5 s later; then nothing more while both conditions stay
    assert [(i, d.kind) for i, d in found] == [(2, HOST_STARVATION), (102, OVERLOAD)]


def test_returns_after_cool_down_is_detected_again_but_not_before():
    det = Detector(DetectionPolicy(cooldown_s=5.0))
    rec = Recording()
    over = [steady("a", exec_us=140.0)]
    fine = [steady("a")]
    warm_up(det, rec, fine)
    # overload 3 heartbeats, clears for 1 s, returns for 1 s (before the cool-down ends: nothing),
    # clears, and returns 6 s after the first detection: detected again
    seq = ([rec.next(instances=over) for _ in range(3)] + [rec.next(instances=fine) for _ in range(20)]
           + [rec.next(instances=over) for _ in range(20)] + [rec.next(instances=fine) for _ in range(77)]
           + [rec.next(instances=over) for _ in range(3)])
    found = feed(det, seq)
    assert [i for i, _ in found] == [2, 122]
    assert found[1][1].t - found[0][1].t == pytest.approx(6.0)


def test_latch_holds_until_the_condition_clears_even_after_cool_down():
    det = Detector(DetectionPolicy(cooldown_s=1.0))
    rec = Recording()
    seq = [rec.next(queue=100, util=0.2) for _ in range(4)]
    seq += [rec.next(queue=20, util=0.2) for _ in range(100)]  # below the threshold, above queue_clear: latched
    seq += [rec.next(queue=100, util=0.2) for _ in range(3)]
    seq += [rec.next(queue=0, util=0.2)] + [rec.next(queue=100, util=0.2) for _ in range(3)]
    assert [i for i, _ in feed(det, seq)] == [3, 110]


def test_a_decision_starts_the_cool_down_and_forget_drops_state():
    det = Detector(DetectionPolicy(cooldown_s=4.975))  # ends between two heartbeats, clear of float sums
    rec = Recording()
    warm_up(det, rec)
    det.cool_down("nic0", rec.t)
    seq = [rec.next(instances=[steady("a", exec_us=140.0)]) for _ in range(120)]  # 6 s
    assert [i for i, _ in feed(det, seq)] == [99]  # the first heartbeat after the cool-down
    det.forget("nic0")
    assert len(det) == 0


def test_hosts_are_not_judged():
    det = Detector()
    samples = [NodeSample("h", 1.0 + k * PERIOD, 500, k * 10, k * 10, 40_000, (steady("a", exec_us=500.0),), "host")
               for k in range(10)]
    assert feed(det, samples) == [] and len(det) == 0


def test_nodes_are_independent_when_interleaved():
    det = Detector()
    a, b = Recording("nicA"), Recording("nicB")
    seq = []
    for _ in range(4):
        seq += [a.next(queue=100, util=0.1), b.next(queue=100 if len(seq) % 4 else 0, util=0.1)]
    assert [(i, d.node_id) for i, d in feed(det, seq)] == [(6, "nicA")]


def test_policy_is_checked():
    for bad in (dict(window=0), dict(queue_clear=32), dict(bandwidth_util_max=0), dict(overload_clear=0.2),
                dict(cooldown_s=-1), dict(warmup_heartbeats=0), dict(min_requests=0), dict(overload_floor_us=-1),
                dict(overload_queue_floor=0)):
        with pytest.raises(ValueError):
            DetectionPolicy(**bad)
