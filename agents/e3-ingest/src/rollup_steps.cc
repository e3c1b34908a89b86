// SPDX-License-Identifier: Apache-2.0
//
// The port of e3.energy.ledger's interval rule and e3.rollup.steps (see rollup_steps.h). Every floating-point
// operation is the reference's, in its order (a + b * c stays two roundings: the target is built with
// -ffp-contract=off), and Python's own library rules are reproduced where the rows depend on them: float
// floor division (a step's start), int / int division (seconds_from_ns), repr(float), and the microsecond
// rounding of datetime.fromtimestamp.
#include "rollup_steps.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <initializer_list>
#include <stdexcept>
#include <system_error>

namespace ingest {
namespace {

__extension__ typedef __int128 int128; // a GCC/Clang built-in: exact products up to 2^127

constexpr uint64_t kTwo53 = uint64_t(1) << 53;
constexpr int64_t kNsPerS = 1000000000;

// |c x 1e9 - a|, scaled by 2^40, for a positive double c within a few ulps of a / 1e9 where a >= 2^53 (so
// c >= 2^23 and c's exponent, as m x 2^e with a 53-bit m, is at least -29): exact in 128 bits.
int128 scaled_error(double c, uint64_t a) {
    int x = 0;
    const double f = std::frexp(c, &x);
    const auto m = static_cast<int128>(std::ldexp(f, 53)); // exact: f has 53 significant bits
    const int128 lhs = m * kNsPerS * (int128(1) << (x - 53 + 40));
    const int128 rhs = static_cast<int128>(a) << 40;
    return lhs > rhs ? lhs - rhs : rhs - lhs;
}

bool even_significand(double c) {
    int x = 0;
    return (static_cast<uint64_t>(std::ldexp(std::frexp(c, &x), 53)) & 1) == 0;
}

// Python's float // float (Objects/floatobject.c, _float_div_mod): fmod, then the quotient snapped to
// the nearest integral value. Differs from floor(vx / wx) only where the division rounds up to an integer.
double python_floor_div(double vx, double wx) {
    double mod = std::fmod(vx, wx);
    double div = (vx - mod) / wx;
    if (mod != 0.0 && ((wx < 0) != (mod < 0))) div -= 1.0; // the remainder takes the divisor's sign
    if (div == 0.0) return std::copysign(0.0, vx / wx);
    double floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
    return floordiv;
}

// CPython's _PyTime_Round with _PyTime_ROUND_HALF_EVEN.
double round_half_even(double x) {
    double rounded = std::round(x);
    if (std::fabs(x - rounded) == 0.5) rounded = 2.0 * std::round(x / 2.0);
    return rounded;
}

// Days since 1970-01-01 -> proleptic Gregorian year, month, day (H. Hinnant's civil_from_days).
void civil_from_days(int64_t z, int64_t &y, unsigned &m, unsigned &d) {
    z += 719468;
    const int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    const auto doe = static_cast<unsigned>(z - era * 146097);
    const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const unsigned mp = (5 * doy + 2) / 153;
    d = doy - (153 * mp + 2) / 5 + 1;
    m = mp < 10 ? mp + 3 : mp - 9;
    y = static_cast<int64_t>(yoe) + era * 400 + (m <= 2);
}

// `seconds` (whole, since the epoch) and `micros` as datetime.isoformat() writes them with timezone.utc.
std::string iso_of(int64_t seconds, long micros) {
    int64_t days = seconds / 86400, rest = seconds % 86400;
    if (rest < 0) {
        rest += 86400;
        days -= 1;
    }
    int64_t year = 0;
    unsigned month = 0, day = 0;
    civil_from_days(days, year, month, day);
    char buf[64];
    int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d", static_cast<long long>(year), month,
                          day, static_cast<int>(rest / 3600), static_cast<int>(rest / 60 % 60),
                          static_cast<int>(rest % 60));
    if (micros != 0) n += std::snprintf(buf + n, sizeof buf - n, ".%06ld", micros);
    return std::string(buf, n) + "+00:00";
}

} // namespace

double seconds_from_ns(int64_t ns) {
    // Python's int / int is the exact quotient rounded once (half to even). Below 2^53 both operands are
    // exact doubles and one IEEE division is that; above, the double division's result is within a few
    // ulps, and the nearest of its neighbours is picked by exact integer comparison.
    const bool negative = ns < 0;
    const uint64_t a = negative ? uint64_t(0) - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    double q = static_cast<double>(a) / 1e9;
    if (a > kTwo53) {
        double best = q;
        int128 best_error = scaled_error(q, a);
        double below = q, above = q;
        for (int step = 0; step < 3; ++step) {
            below = std::nextafter(below, 0.0);
            above = std::nextafter(above, INFINITY);
            for (double c : {below, above}) {
                const int128 error = scaled_error(c, a);
                if (error < best_error || (error == best_error && even_significand(c) && !even_significand(best))) {
                    best = c;
                    best_error = error;
                }
            }
        }
        q = best;
    }
    return negative ? -q : q;
}

// ---- EnergyClock: NodeTotals.add's interval and joules ------------------------------------------------

EnergyClock::EnergyClock(double max_interval_s) : max_interval_s_(max_interval_s) {
    if (!(max_interval_s > 0)) throw std::invalid_argument("max_interval_s must be > 0");
}

double EnergyClock::add(double t, double watts) {
    const double last = last_t_;
    double dt = 0.0;
    if (t > last) {
        last_t_ = t;
        dt = t - last;
        // A longer silence is charged max_interval_s, not the whole of it; the node's first heartbeat
        // (last == 0) none. As in the reference, a first heartbeat at t <= max_interval_s keeps dt = t.
        if (dt > max_interval_s_) dt = last != 0.0 ? max_interval_s_ : 0.0;
    }
    interval_ = dt;
    return watts * dt;
}

// ---- NodeSteps ----------------------------------------------------------------------------------------

namespace {

// A cumulative counter's growth; a lower value is a restarted agent counting from 0 (steps._growth).
int64_t growth(int64_t now, int64_t before) { return now >= before ? now - before : now; }

} // namespace

NodeSteps::NodeSteps(std::string node_id, std::string cluster_id, int64_t step_s, std::shared_ptr<int64_t> untaken)
    : node_id_(std::move(node_id)), cluster_id_(std::move(cluster_id)), step_s_(step_s),
      untaken_(untaken ? std::move(untaken) : std::make_shared<int64_t>(0)) {}

void NodeSteps::add(double t, double seconds, double joules, const std::string &source, double watts,
                    int64_t queue_len, double cpu_util, int64_t rx_bytes, int64_t tx_bytes, int64_t rx_packets,
                    int64_t tx_packets, const std::vector<InstanceFigures> &instances) {
    // start = int(t // step_s) * step_s
    const int64_t start = static_cast<int64_t>(python_floor_div(t, static_cast<double>(step_s_))) * step_s_;
    auto found = steps_.find(start);
    if (found == steps_.end()) {
        found = steps_.emplace(start, Step{}).first;
        found->second.source = source;
        ++*untaken_;
    } else if (source != found->second.source) {
        found->second.source = kMixed;
    }
    Step &step = found->second;
    if (t > last_t_) { // counters: only a heartbeat newer than all before has something to subtract from
        last_t_ = t;
        const int64_t now[4] = {rx_bytes, tx_bytes, rx_packets, tx_packets};
        if (have_counters_) {
            step.rx_bytes += growth(rx_bytes, counters_[0]);
            step.tx_bytes += growth(tx_bytes, counters_[1]);
            step.rx_packets += growth(rx_packets, counters_[2]);
            step.tx_packets += growth(tx_packets, counters_[3]);
        }
        for (int i = 0; i < 4; ++i) counters_[i] = now[i];
        have_counters_ = true;
    }
    step.heartbeats += 1;
    step.seconds += seconds;
    step.joules += joules;
    step.watts_sum += watts;
    if (watts > step.watts_max) step.watts_max = watts;
    step.queue_sum += queue_len;
    if (queue_len > step.queue_max) step.queue_max = queue_len;
    step.cpu_sum += cpu_util;
    if (cpu_util > step.cpu_max) step.cpu_max = cpu_util;
    if (t > step.last_ts) step.last_ts = t;
    for (const InstanceFigures &inst : instances) {
        auto [at, made] = step.index.emplace(inst.instance_id, step.instances.size());
        if (made) {
            step.instances.emplace_back(inst.instance_id, InstanceStep{});
            ++*untaken_;
        }
        InstanceStep &acc = step.instances[at->second].second;
        acc.heartbeats += 1;
        acc.requests += inst.requests;
        acc.exec_sum += inst.exec_us * static_cast<double>(inst.requests);
        acc.cpu_seconds += inst.cpu_share * seconds;
        acc.lat_n += inst.lat_n;
        acc.lat_sum += inst.lat_avg_us * static_cast<double>(inst.lat_n);
        acc.p99_wsum += inst.lat_p99_us * static_cast<double>(inst.lat_n);
        if (inst.lat_p99_us > acc.p99_max) acc.p99_max = inst.lat_p99_us;
        step.requests += inst.requests;
    }
}

Rollups NodeSteps::take(double ended_by) {
    std::map<int64_t, Step> steps;
    if (ended_by == std::numeric_limits<double>::infinity()) {
        steps.swap(steps_);
    } else { // the map is in start order: the ended steps are its first ones
        auto open = steps_.begin();
        while (open != steps_.end() && static_cast<double>(open->first + step_s_) <= ended_by) ++open;
        steps.insert(std::make_move_iterator(steps_.begin()), std::make_move_iterator(open));
        steps_.erase(steps_.begin(), open);
    }
    Rollups out;
    for (auto &[start, s] : steps) {
        out.nodes.push_back(NodeRollup{node_id_, cluster_id_, start, step_s_, s.heartbeats, s.seconds, s.joules,
                                       s.source, s.watts_sum, s.watts_max, s.queue_sum, s.queue_max, s.cpu_sum,
                                       s.cpu_max, s.rx_bytes, s.tx_bytes, s.rx_packets, s.tx_packets, s.requests,
                                       s.last_ts});
        for (auto &[iid, i] : s.instances)
            out.instances.push_back(InstanceRollup{iid, node_id_, cluster_id_, start, step_s_, i.heartbeats,
                                                   i.requests, i.exec_sum, i.cpu_seconds, i.lat_n, i.lat_sum,
                                                   i.p99_max, i.p99_wsum});
    }
    *untaken_ -= static_cast<int64_t>(out.nodes.size() + out.instances.size());
    return out;
}

// ---- RollupSteps --------------------------------------------------------------------------------------

RollupSteps::RollupSteps(int64_t step_s) : step_s_(step_s), untaken_(std::make_shared<int64_t>(0)) {
    if (step_s <= 0) throw std::invalid_argument("step_s must be > 0");
}

NodeSteps &RollupSteps::node(const std::string &node_id, const std::string &cluster_id) {
    auto found = by_id_.find(node_id);
    if (found != by_id_.end()) {
        found->second->set_cluster_id(cluster_id);
        return *found->second;
    }
    order_.push_back(std::make_unique<NodeSteps>(node_id, cluster_id, step_s_, untaken_));
    by_id_.emplace(node_id, order_.back().get());
    return *order_.back();
}

Rollups RollupSteps::take(double ended_by) {
    Rollups out;
    for (auto &steps : order_) {
        Rollups one = steps->take(ended_by);
        out.nodes.insert(out.nodes.end(), one.nodes.begin(), one.nodes.end());
        out.instances.insert(out.instances.end(), one.instances.begin(), one.instances.end());
    }
    return out;
}

// ---- COPY text ----------------------------------------------------------------------------------------

void append_python_float(std::string &out, double x) {
    if (std::isnan(x)) {
        out += "nan";
        return;
    }
    if (std::isinf(x)) {
        out += x > 0 ? "inf" : "-inf";
        return;
    }
    if (x == 0.0) {
        out += std::signbit(x) ? "-0.0" : "0.0";
        return;
    }
    // The shortest digits that read back as x (as Python's dtoa mode 0), laid out by repr's rule: an
    // exponent when the decimal point would sit more than 16 digits right or 4 left of the first digit.
    char sci[64];
    const char *const end = std::to_chars(sci, sci + sizeof sci, x, std::chars_format::scientific).ptr;
    char digits[32]; // [-]d[.ddd]e(+|-)dd: at most 17 significant digits
    int n = 0;
    const char *p = sci;
    for (; *p != 'e'; ++p)
        if (*p >= '0' && *p <= '9') digits[n++] = *p;
    const bool negative_exponent = p[1] == '-';
    int magnitude = 0;
    for (p += 2; p < end; ++p) magnitude = magnitude * 10 + (*p - '0');
    const int exponent = negative_exponent ? -magnitude : magnitude;
    const int decpt = exponent + 1; // x = 0.digits x 10^decpt
    char buf[64];
    int k = 0;
    if (x < 0) buf[k++] = '-';
    if (decpt <= -4 || decpt > 16) {
        buf[k++] = digits[0];
        if (n > 1) {
            buf[k++] = '.';
            for (int i = 1; i < n; ++i) buf[k++] = digits[i];
        }
        k += std::snprintf(buf + k, sizeof buf - static_cast<size_t>(k), "e%c%02d", negative_exponent ? '-' : '+',
                           magnitude);
    } else if (decpt <= 0) {
        buf[k++] = '0';
        buf[k++] = '.';
        for (int i = 0; i < -decpt; ++i) buf[k++] = '0';
        for (int i = 0; i < n; ++i) buf[k++] = digits[i];
    } else if (decpt >= n) {
        for (int i = 0; i < n; ++i) buf[k++] = digits[i];
        for (int i = n; i < decpt; ++i) buf[k++] = '0';
        buf[k++] = '.';
        buf[k++] = '0';
    } else {
        for (int i = 0; i < decpt; ++i) buf[k++] = digits[i];
        buf[k++] = '.';
        for (int i = decpt; i < n; ++i) buf[k++] = digits[i];
    }
    out.append(buf, static_cast<size_t>(k));
}

std::string python_float_repr(double x) {
    std::string out;
    append_python_float(out, x);
    return out;
}

std::string iso_utc(int64_t seconds) { return iso_of(seconds, 0); }

std::string iso_utc(double seconds) {
    // CPython's _PyTime_DoubleToDenominator: the fraction in microseconds, rounded half to even.
    double intpart = 0.0;
    double floatpart = std::modf(seconds, &intpart);
    floatpart *= 1e6;
    floatpart = round_half_even(floatpart);
    if (floatpart >= 1e6) {
        floatpart -= 1e6;
        intpart += 1.0;
    } else if (floatpart < 0) {
        floatpart += 1e6;
        intpart -= 1.0;
    }
    return iso_of(static_cast<int64_t>(intpart), static_cast<long>(floatpart));
}

std::string copy_text(const std::string &value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        switch (c) {
        case '\\': out += "\\\\"; break;
        case '\t': out += "\\t"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        default: out += c;
        }
    }
    return out;
}

namespace {

// A line's fields joined by tabs, ended by a newline.
std::string tab_line(std::initializer_list<std::string> fields) {
    std::string out;
    for (const std::string &f : fields) {
        if (!out.empty()) out += '\t';
        out += f;
    }
    return out + '\n';
}

std::string num(int64_t v) { return std::to_string(v); }
std::string num(double v) { return python_float_repr(v); }

} // namespace

std::string node_copy_line(const NodeRollup &r) {
    // Note: node and cluster ids go as they are (UUIDs), as node_line writes them.
    return tab_line({r.node_id, iso_utc(r.start), num(r.step_s), r.cluster_id, num(r.heartbeats), num(r.seconds),
                     num(r.joules), r.power_source, num(r.power_watts_sum), num(r.power_watts_max),
                     num(r.queue_len_sum), num(r.queue_len_max), num(r.cpu_util_sum), num(r.cpu_util_max),
                     num(r.rx_bytes), num(r.tx_bytes), num(r.rx_packets), num(r.tx_packets), num(r.requests),
                     iso_utc(r.last_ts)});
}

std::string instance_copy_line(const InstanceRollup &r) {
    return tab_line({copy_text(r.instance_id), r.node_id, iso_utc(r.start), num(r.step_s), r.cluster_id,
                     num(r.heartbeats), num(r.requests), num(r.exec_time_us_sum), num(r.cpu_seconds),
                     num(r.latency_count), num(r.latency_us_sum), num(r.latency_p99_max),
                     num(r.latency_p99_weighted_sum)});
}

} // namespace ingest
