// The estimator of a launch whose blocks' counters are linear in their work
// (estimator.hpp, work_launch): least-squares lines per class of blocks, a
// jackknife for the variance, and the time by replications of the blocks'
// steps placed on the MPs.
#include <algorithm>
#include <cmath>
#include <random>
#include <set>

#include "agpu/errors.hpp"
#include "agpu/sim/estimator.hpp"
#include "sampling.hpp"

namespace agpu::sim {

using namespace detail;

void estimate_linear(const model::machine& m, const work_launch& wl, bool synthesized, launch_record& rec) {
    const auto work = wl.work;
    const auto klass = wl.klass;
    const auto typical_work = wl.typical_work;
    const auto known = wl.known;
    const auto samples = wl.samples;
    const auto themselves = wl.themselves;
    const auto known_variance = wl.known_variance;
    const kl::dim3 grid = wl.grid, block = wl.block;
    const std::uint64_t nthreads = std::uint64_t(block.x) * block.y * block.z;
    const std::uint64_t nblocks = std::uint64_t(grid.x) * grid.y * grid.z;
    AGPU_CHECK(work.size() == nblocks && (klass.empty() || klass.size() == nblocks) &&
                   (typical_work.empty() || typical_work.size() == nblocks) &&
                   (known.empty() || known.size() == nblocks),
               "record_work_launch: one work entry (and class, typical work) per block");
    AGPU_CHECK(known_variance.empty() || known_variance.size() == counter_count,
               "record_work_launch: one known variance per counter");
    auto class_of = [&](std::uint64_t b) { return klass.empty() ? 0u : unsigned(klass[b]); };
    std::vector<const work_sample*> own_of(nblocks, nullptr);  // the whole-block sample of a block counted as itself
    for (const auto& s : samples)
        AGPU_CHECK(s.block < nblocks && s.work <= work[s.block],
                   "record_work_launch: a sample outside its block's work");
    for (auto b : themselves) {
        AGPU_CHECK(b < nblocks, "record_work_launch: a block beyond the grid");
        for (const auto& s : samples)
            if (s.block == b && s.work == work[b]) own_of[b] = &s;
        AGPU_CHECK(own_of[b], "record_work_launch: a block counted as itself needs a sample of its whole work");
    }

    // One class's model: its sampled blocks (ids), the line fitted over their
    // points (least squares; slope 0 where all did the same work), the count
    // and work of the blocks it stands for.
    struct line {
        double a = 0, b = 0;
        double at(double x) const { return a + b * x; }
    };
    struct model_class {
        std::vector<std::uint64_t> ids;
        double n = 0, w = 0, fpc = 0, widen = 0;
        bool lines_each = true;  // every sampled block has points at two works (probes)
    };
    unsigned classes = 1;
    for (std::uint64_t b = 0; b < nblocks; ++b) classes = std::max(classes, class_of(b) + 1);
    std::vector<model_class> cls(classes);
    for (std::uint64_t b = 0; b < nblocks; ++b)
        if (!own_of[b]) {
            cls[class_of(b)].n += 1;
            cls[class_of(b)].w += double(work[b]);
        }
    for (const auto& s : samples)
        if (!own_of[s.block] && std::find(cls[class_of(s.block)].ids.begin(), cls[class_of(s.block)].ids.end(),
                                          s.block) == cls[class_of(s.block)].ids.end())
            cls[class_of(s.block)].ids.push_back(s.block);
    for (auto& c : cls) {
        if (c.n == 0) continue;
        AGPU_CHECK(c.ids.size() >= 2, "record_work_launch: at least 2 sampled blocks for each class it models");
        const double S = double(c.ids.size());
        c.fpc = synthesized ? 1.0 + S / c.n : std::max(0.0, 1.0 - S / c.n);
        c.widen = t_factor(c.ids.size() - 1) * t_factor(c.ids.size() - 1);
        for (auto id : c.ids)
            c.lines_each &=
                std::count_if(samples.begin(), samples.end(), [&](const work_sample& s) { return s.block == id; }) > 1;
    }
    auto fit = [&](const model_class& c, auto value, std::size_t skip) {  // value(work_sample) -> double
        double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
        for (const auto& s : samples) {
            if (own_of[s.block] || std::find(c.ids.begin(), c.ids.end(), s.block) == c.ids.end()) continue;
            if (skip < c.ids.size() && s.block == c.ids[skip]) continue;
            const double x = double(s.work), y = value(s);
            n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
        }
        const double vx = sxx - sx * sx / n;
        line l;
        l.b = vx > 1e-9 * sxx ? (sxy - sx * sy / n) / vx : 0.0;
        l.a = (sy - l.b * sx) / n;
        return l;
    };
    // A block counted as itself: its sample, with the known part given for it
    // in place of the sample's own.
    auto own_value = [&](auto value, std::uint64_t b) {
        const auto* s = own_of[b];
        return known.empty() ? value(s->at) : value(s->at) - value(s->known) + value(known[b]);
    };
    // A value's total over the launch (the blocks counted as themselves plus
    // each class's line over its blocks) and its variance: a jackknife over
    // each class's sampled blocks. lines: each class's full fit.
    // value(block_sample) -> double; a sample's modeled value is its value less its known part's.
    auto estimate = [&](auto value, double& variance, std::vector<line>& lines) {
        const auto y = [&](const work_sample& s) { return value(s.at) - value(s.known); };
        double total = 0;
        for (auto b : themselves) total += own_value(value, b);
        if (!known.empty())
            for (std::uint64_t b = 0; b < nblocks; ++b)
                if (!own_of[b]) total += value(known[b]);
        variance = 0;
        lines.assign(classes, {});
        for (unsigned k = 0; k < classes; ++k) {
            const auto& c = cls[k];
            if (c.n == 0) continue;
            lines[k] = fit(c, y, c.ids.size());
            total += c.n * lines[k].a + c.w * lines[k].b;
            const std::size_t S = c.ids.size();
            std::vector<double> loo(S);
            double mean = 0;
            for (std::size_t j = 0; j < S; ++j) {
                const line l = fit(c, y, j);
                loo[j] = c.n * l.a + c.w * l.b;
                mean += loo[j] / double(S);
            }
            double sq = 0;
            for (double x : loo) sq += (x - mean) * (x - mean);
            variance += double(S - 1) / double(S) * sq * c.fpc * c.widen;
            // On synthesized data the run's own blocks' known parts differ too:
            // twice the class's spread of known parts about their line in the
            // work, over its blocks (the run's and these deviate alike).
            if (synthesized && !known.empty()) {
                double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, syy = 0;
                for (std::uint64_t b = 0; b < nblocks; ++b)
                    if (!own_of[b] && class_of(b) == k) {
                        const double x = double(work[b]), v = value(known[b]);
                        n += 1, sx += x, sy += v, sxx += x * x, sxy += x * v, syy += v * v;
                    }
                if (n > 2) {
                    const double vx = sxx - sx * sx / n, vy = syy - sy * sy / n, cxy = sxy - sx * sy / n;
                    const double res = std::max(0.0, vx > 1e-9 * sxx ? vy - cxy * cxy / vx : vy);
                    variance += 2.0 * res / (n - 2) * n;
                }
            }
        }
        return total;
    };

    rec.estimate = launch_estimate::linear;
    rec.c[counter::launches] = 1;
    rec.c[counter::thread_blocks] = nblocks;
    rec.c[counter::threads] = nblocks * nthreads;
    std::vector<line> lines;
    for (std::size_t i = 0; i < counter_count; ++i) {
        const auto c = static_cast<counter>(i);
        if (exact_counter(c) || c == counter::time_steps || c == counter::chain_waits ||
            c == counter::chain_collectives)
            continue;
        if (counter_table[i].agg != aggregation::sum) {
            for (const auto& s : samples) rec.c.v[i] = std::max(rec.c.v[i], s.at.c.v[i]);
            continue;
        }
        double var = 0;
        rec.c.v[i] = nonnegative(estimate([&](const block_sample& b) { return double(b.c.v[i]); }, var, lines));
        rec.variance[i] = var + (known_variance.empty() ? 0.0 : known_variance[i]);
    }

    // Time. Each modeled block's steps: its class's line at its work, plus
    // noise of the class's sampled blocks' spread about the line at their
    // whole work (each from its own points); the blocks counted as themselves,
    // their steps (plus that noise, on synthesized data); placed on the MPs as
    // in an exact run. The makespan is the mean over replications; its
    // variance, the steps total's scaled by (makespan / total)², plus the
    // replications' spread.
    auto steps_of = [](const block_sample& b) { return double(b.steps); };
    double steps_var = 0;
    const double steps_total = estimate(steps_of, steps_var, lines);
    if (!known_variance.empty()) steps_var += known_variance[std::size_t(counter::time_steps)];
    auto known_steps = [&](std::uint64_t b) { return known.empty() ? 0.0 : double(known[b].steps); };
    std::vector<double> sd(classes, 0.0);
    for (unsigned k = 0; k < classes; ++k) {
        const auto& c = cls[k];
        if (c.n == 0) continue;
        double res = 0;
        for (auto id : c.ids) {
            double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
            for (const auto& s : samples)
                if (s.block == id) {
                    const double x = double(s.work), y = steps_of(s.at) - steps_of(s.known);
                    n += 1, sx += x, sy += y, sxx += x * x, sxy += x * y;
                }
            const double vx = sxx - sx * sx / n, b = vx > 1e-9 * sxx ? (sxy - sx * sy / n) / vx : lines[k].b;
            const double own = (sy - b * sx) / n + b * double(work[id]);
            res += (own - lines[k].at(double(work[id]))) * (own - lines[k].at(double(work[id])));
        }
        // Degrees of freedom: S - 1 about a mean of per-block lines, S - 2 about a fitted one.
        const std::size_t dof = c.ids.size() - (c.lines_each ? 1 : 2);
        sd[k] = dof > 0 ? std::sqrt(res / double(dof)) : 0.0;
    }
    const std::uint64_t k = std::min<std::uint64_t>(m.k(), nblocks);
    // On synthesized data the run's own blocks have other work too: each
    // replication draws a modeled block's work as its typical work plus a
    // deviation from typical drawn from the launch's.
    std::vector<double> deviations;
    if (synthesized && !typical_work.empty())
        for (std::uint64_t b = 0; b < nblocks; ++b)
            if (!own_of[b]) deviations.push_back(double(work[b]) - typical_work[b]);
    const auto spread = replicated_makespan(nblocks, k, [&](std::mt19937_64& rng, std::vector<std::uint64_t>& v) {
        for (std::uint64_t b = 0; b < nblocks; ++b) {
            std::normal_distribution<double> noise(0.0, sd[class_of(b)]);
            if (own_of[b]) {
                v[b] = nonnegative(own_value(steps_of, b) + (synthesized ? noise(rng) : 0.0));
                continue;
            }
            const double x = deviations.empty()
                                 ? double(work[b])
                                 : std::max(0.0, typical_work[b] + deviations[rng() % deviations.size()]);
            v[b] = nonnegative(known_steps(b) + lines[class_of(b)].at(x) + noise(rng));
        }
    });
    rec.c[counter::time_steps] = nonnegative(spread.mean);
    for (const counter which : {counter::chain_waits, counter::chain_collectives}) {
        const auto waits_of = [&](const block_sample& b) {
            return double(which == counter::chain_waits ? model::block_waits(b.c) : model::block_collectives(b.c));
        };
        std::vector<line> wlines;
        double wvar = 0;
        estimate(waits_of, wvar, wlines);
        std::vector<std::uint64_t> expected(nblocks);
        for (std::uint64_t b = 0; b < nblocks; ++b)
            expected[b] =
                own_of[b]
                    ? nonnegative(own_value(waits_of, b))
                    : nonnegative((known.empty() ? 0.0 : waits_of(known[b])) + wlines[class_of(b)].at(double(work[b])));
        rec.c[which] = heaviest_chain(expected, nthreads, m);
        // One block's variance, the total's over the blocks, per warp.
        const double warps = double(std::max<std::uint64_t>(1, (nthreads + m.b - 1) / m.b));
        rec.variance[std::size_t(which)] = wvar / double(nblocks) / (warps * warps);
    }
    if (steps_total > 0)
        rec.variance[std::size_t(counter::time_steps)] =
            steps_var * (spread.mean / steps_total) * (spread.mean / steps_total) + spread.var;
    rec.mps_used = k;
    std::uint64_t sampled_blocks = themselves.size();
    for (const auto& c : cls) sampled_blocks += c.ids.size();
    std::set<std::uint64_t> shortened;
    for (const auto& s : samples)
        if (s.work < work[s.block]) shortened.insert(s.block);
    rec.blocks_shortened = shortened.size();
    rec.blocks_recorded = sampled_blocks;
    rec.blocks_skipped = nblocks - sampled_blocks;
}

}  // namespace agpu::sim
