// sort/multiway and sort/pairwise in the simulator's sampled mode on random
// keys: every launch's inputs synthesized, only sampled blocks run, and the
// heavy merge blocks probed on shortened work.
//
// Why: a sampled run that runs its unrecorded blocks (to feed later launches
// the right data) costs about as much as an exact one, and a 2^28-key sort's
// merge launches have thousands of heaps of tens of thousands of keys each
// (some of far more), so even a few recorded blocks per launch of a run that
// computes its data take far longer than the seconds a prediction should.
// With random keys the state each launch reads is known in distribution
// (sort_synth.hpp), so it is synthesized, where a kernel touches it, instead
// of computed:
//   - block_sort reads i.i.d. keys; every merge pass reads runs of L sorted
//     i.i.d. keys (L the pass's run length); outputs go to memory no one
//     reads. Launches are declared synthesized and skip their unrecorded
//     blocks (block_sort's merge-path searches depend on the keys: sampled by
//     the engine's strata).
//   - The distribution's launches (select_pivots, split_search) record a few
//     blocks and skip the rest; every group's pivots and splits, which the
//     merges' sampled blocks read and every block's work comes from, are made
//     on the host by the kernels' rules (synthesized_distribution: a split is
//     one descent of a run's tree, no memory touched) and checked against
//     what the recorded blocks wrote.
//   - A merge launch's blocks are estimated with every block's counters
//     linear in its keys (executor::record_work_launch): blocks of up to 2·x1
//     keys sampled whole by strata, fewer where blocks are larger
//     (sampled_policy::light_keys); longer ones probed (sampled_policy::probes,
//     stratified as the engine samples) twice, on the first x1 and x2 keys of
//     their range (split on the host by a d-way selection over the same
//     synthesized runs). The part of a block's counters its ranges fix (its
//     global moves and their staging) is costed per block (moves_tally), in
//     expectation over where a range falls against b-word blocks where it
//     starts at a searched split (moves_near).
// The error is measured against exact runs in sim/README.md. The pieces:
// sort_synth.hpp (the synthesized state), sort_distribution.hpp (the
// distribution made on the host), sort_known_part.hpp (what a block's ranges
// fix).
//
// Applies to u32 and float keys with input=random (every bit pattern equally
// likely, so the order values are uniform); other inputs and u64 keys take the
// ordinary sampled mode. Values (values=1) are not synthesized: no count
// depends on them (they move with their keys), so they read zeros.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <numeric>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "agpu/model/closed_form.hpp"
#include "agpu/sim/executor.hpp"
#include "estimators/sort_distribution.hpp"
#include "estimators/sort_known_part.hpp"
#include "estimators/sort_synth.hpp"
#include "sort/sort_runs.hpp"

namespace agpu::sim::sort_estimator {

// The sort's kernels, plan and runs (kernels/sort/), which this estimator drives.
using namespace ::agpu::kernels;
using namespace ::agpu::kernels::sort;

// The sampled driver's choices (measured: sim/README.md, "Sampled sorts").
struct sampled_policy {
    // Probes merge x1 and x2 = 2·x1 keys of a block's range, x1 the larger of
    // min_probe keys and probe_heaps·d·chunk: a block's cost per key rises
    // over its first tens of thousands of keys (the heap settles) and is
    // steady after; the slope between x1 and x2 then is within about 0.1% of
    // a whole block's (d = 16 and 64, 1 M-key blocks of the 256-thread heaps;
    // on the warp heaps the probed rows of sim/README's table check it).
    static constexpr std::uint64_t min_probe = std::uint64_t(1) << 16;
    static constexpr std::uint64_t probe_heaps = 4;
    // Probed blocks of a heavy launch (Student's t widens the error of so few).
    static constexpr std::uint64_t probes = 3;
    // Light launches record about this many keys' worth of blocks: the first,
    // the last and one from each of light_keys / (keys per block) strata, at
    // least min_strata, at most the engine's default.
    static constexpr std::uint64_t light_keys = std::uint64_t(1) << 17;
    static constexpr std::uint64_t min_strata = 2;
    // select_pivots and split_search record this many strata and skip the
    // rest (their outputs come from the host: synthesized_distribution).
    static constexpr std::uint64_t split_strata = 8;
    // Synthesize only runs whose exact simulation would record more lane
    // accesses than this (about 4 s): below, the ordinary sampled run is
    // cheap, and it sees the run's own data, where a launch of few blocks has a
    // makespan (their maximum) that a synthesized sample of them misses by a
    // few percent (sort/multiway at 2^17 on the 256-thread heaps: 4%).
    static constexpr double synthesize_lanes = double(std::uint64_t(1) << 27);

    static std::uint64_t x1(std::uint64_t d, std::uint64_t chunk) {
        return std::max(min_probe, probe_heaps * d * chunk);
    }
    static std::uint64_t light_strata(std::uint64_t mean_keys, std::uint64_t most) {
        return std::clamp<std::uint64_t>(light_keys / std::max<std::uint64_t>(1, mean_keys), min_strata, most);
    }
    // Blocks of at most 2·x1 keys are sampled whole (a group's first range
    // can be nearly empty: its pivot falls among the runs' first samples).
    static bool small(std::uint64_t keys, std::uint64_t x1) { return keys <= 2 * x1; }
};

// Whether a run of this sort can be synthesized: random 32-bit keys of a merge sort.
inline bool synthesizable(const std::string& key, const param_values& p) {
    return key != "sort/bitonic" && p.text("input") == "random" && p.text("type") != "u64";
}

// The lane accesses the synthesized sampled run records, estimated from the
// plan and the policy above (sim::algorithm::sampled_lanes); 0 where the run
// is not synthesized.
inline double synthesized_lanes(const model::machine& m, const std::string& key, std::uint64_t n, const param_values& p,
                                std::uint64_t most_strata = 48) {
    using P = sampled_policy;
    if (!synthesizable(key, p) || n == 0) return 0;
    const auto shape = plan_ns::shape_of(key, p);
    const auto pl = plan_ns::make_plan(m, n, shape);
    if (plan_ns::merge_sort_lanes(m, pl, shape) <= P::synthesize_lanes) return 0;
    double lanes = double(std::min<std::uint64_t>(pl.tiles, 2 * most_strata + 2) * shape.tile) *
                   plan_ns::block_sort_lanes_per_element(m, shape);
    for (const auto& ps : pl.passes) {
        const std::uint64_t blocks = ps.groups * ps.parts, mean = std::max<std::uint64_t>(1, n / blocks);
        const std::uint64_t strata = P::light_strata(mean, most_strata);
        const std::uint64_t whole = blocks <= 2 * strata + 2 ? blocks : strata + 2;
        double keys = double(whole) * double(mean);
        if (!P::small(mean, P::x1(ps.d, shape.chunk)))
            keys = std::min(keys, double(std::min(P::probes, blocks) * 3 * P::x1(ps.d, shape.chunk)));
        lanes += keys * plan_ns::merge_lanes_per_key(m, ps, shape);
        if (ps.parts > 1) {
            // select_pivots (a thread per sample, d - 1 binary searches over
            // per_run samples) and split_search (a thread per split, one over
            // the run) on the blocks of split_strata strata; the host's
            // distribution, a descent of a run's tree per sample and per
            // split, costs about 3 lane accesses per level and 30 per unit made.
            const std::uint64_t most = (2 * P::split_strata + 2) * sort_policy::threads;
            const double samples = double(plan_ns::pivot_samples(ps)), levels = std::log2(double(ps.per_run)) + 1;
            const double searches = double(splits_size(ps)), depth = std::log2(std::max(2.0, double(ps.run_len) / 32));
            lanes += std::min(samples, double(most)) * 2 * (double(ps.d - 1) * levels + 5);
            lanes += std::min(searches, double(most)) * 2 * (depth + 5);
            lanes += (samples + double(ps.groups * (ps.parts - 1) * (ps.d - 1))) * (3 * depth + 30);
        }
    }
    return lanes;
}

// One merge launch of the synthesized run, estimated from sampled blocks
// with every block's counters linear in its keys (record_work_launch), in two
// classes: blocks of at most 2·x1 keys, sampled whole (the first and the last
// counted as themselves), and longer ones, probed on their first x1 and x2
// keys where that costs less than sampling them whole.
template <class K, class V, bool Pairs, class P = sampled_policy>
void synthesized_merge(sim::executor& ex, const plan_ns::merge_pass& ps, const plan_ns::sort_shape& shape,
                       const merge_shape& s, sorted_spans<K, V> in, sorted_spans<K, V> out,
                       kl::gspan<const std::uint64_t> splits, const std::vector<bool>& searched) {
    const std::uint64_t blocks = ps.groups * ps.parts;
    const std::uint64_t threads = plan_ns::merge_threads(ex.machine(), shape.warps);
    const std::uint64_t items = plan_ns::bitonic_items(ex.machine(), shape);
    const kl::dim3 grid{static_cast<unsigned>(blocks)}, block{static_cast<unsigned>(threads)};
    std::vector<std::uint64_t> host_splits(splits.size());
    if (!host_splits.empty()) ex.download(std::span<std::uint64_t>(host_splits), splits);
    std::vector<std::uint64_t> work(blocks);
    // Every block's known part, in expectation over where its searched
    // splits fall (detail::moves_tally::moves_near; its fractions carried
    // from block to block, so that the launch's total is the expectations'
    // sum), and the variance of the run's about it. Only where a split's
    // spread is at least b elements (the binomial one of the first pivot's
    // rank in a run, sqrt(L(1/P)(1 - 1/P))): on narrower ones the places in a
    // b-block are not equally likely (sort/multiway parts=4 at 2^22, its
    // first pass, L = 1024: starts 1 to 10 words into a block up to 40%
    // rarer than 17 to 31), and the synthesized draw is kept.
    const std::uint64_t b_words = ex.machine().b;
    const bool spread = s.parts > 1 && s.run_len * (s.parts - 1) >= b_words * b_words * s.parts * s.parts;
    std::vector<sim::block_sample> known(blocks);
    std::vector<double> known_variance(model::counter_count, 0.0);
    detail::moves_memo memo;
    {
        detail::moments sum{}, given{};
        std::vector<bool> anywhere(spread && !searched.empty() ? s.d : 0);
        for (std::uint64_t b = 0; b < blocks; ++b) {
            const auto r = detail::ranges_of(s, host_splits, b);
            work[b] = r.keys();
            for (unsigned k = 0; k < anywhere.size(); ++k)
                anywhere[k] = searched[(b / s.parts * (s.parts + 1) + b % s.parts) * s.d + k];
            const auto part = detail::moves_part(ex.machine(), s, threads, items, b, r.lo, r.hi, Pairs, memo, anywhere);
            known[b] = part.fixed;
            for (std::size_t i = 0; i < model::counter_count; ++i) {
                sum[i] += part.mean[i];
                const double add = std::max(0.0, std::round(sum[i]) - given[i]);
                given[i] += add;
                if (i == std::size_t(model::counter::time_steps)) known[b].steps += std::uint64_t(add);
                else known[b].c.v[i] += std::uint64_t(add);
                known_variance[i] += part.var[i];
            }
        }
    }
    // A sampled block's own known part: its splits where they fell.
    auto own_known = [&](std::uint64_t b) {
        const auto r = detail::ranges_of(s, host_splits, b);
        return detail::moves_part(ex.machine(), s, threads, items, b, r.lo, r.hi, Pairs, memo).fixed;
    };
    const std::uint64_t most = ex.options().sample_strata;
    const std::uint64_t x1 = P::x1(ps.d, shape.chunk), x2 = 2 * x1;
    std::vector<std::uint8_t> klass(blocks);
    std::vector<std::uint64_t> small, big, whole, themselves;
    for (std::uint64_t b = 0; b < blocks; ++b) {
        klass[b] = P::small(work[b], x1) ? 0 : 1;
        (klass[b] == 0 ? small : big).push_back(b);
    }
    auto mean_of = [&](const std::vector<std::uint64_t>& members) {
        std::uint64_t t = 0;
        for (auto b : members) t += work[b];
        return members.empty() ? 0 : t / members.size();
    };
    // A class sampled whole: its first and last block as themselves and one
    // from each stratum between; a class of few blocks, every one (modeled
    // all the same, so that the line's spread gives their deviation from the
    // run's own blocks; one alone counts as itself).
    auto sample_whole = [&](const std::vector<std::uint64_t>& members) {
        const std::uint64_t strata = P::light_strata(mean_of(members), most);
        if (members.size() <= 2 * strata + 2) {
            for (auto b : members) whole.push_back(b);
            if (members.size() == 1) themselves.push_back(members.front());
            return;
        }
        if (s.parts > 1 && s.parts <= strata) {
            // Whole groups, so that every part is sampled as often as it occurs
            // (a group's first range is about half the others, its last larger).
            std::vector<std::uint64_t> groups;
            for (auto b : members)
                if (groups.empty() || groups.back() != b / s.parts) groups.push_back(b / s.parts);
            const std::uint64_t take = std::max<std::uint64_t>(2, strata / s.parts);
            if (take < groups.size()) {
                std::vector<std::uint64_t> picked;
                for (auto i : ex.probe_blocks(groups.size(), take)) picked.push_back(groups[i]);
                for (auto b : members)
                    if (std::find(picked.begin(), picked.end(), b / s.parts) != picked.end()) whole.push_back(b);
                return;
            }
        }
        themselves.push_back(members.front());
        themselves.push_back(members.back());
        whole.push_back(members.front());
        whole.push_back(members.back());
        for (auto i : ex.probe_blocks(members.size() - 2, strata)) whole.push_back(members[i + 1]);
    };
    sample_whole(small);
    const std::uint64_t big_whole = std::min<std::uint64_t>(big.size(), P::light_strata(mean_of(big), most) + 2);
    const bool probe =
        big.size() >= 2 && std::min<std::uint64_t>(P::probes, big.size()) * 3 * x1 < big_whole * mean_of(big);
    if (!probe) sample_whole(big);
    if (themselves.size() == blocks) {  // one block
        launch_merge<sim::executor, K, V, Pairs>(ex, ps, shape, s, in, out, splits);
        return;
    }
    std::vector<sim::work_sample> samples;
    if (!whole.empty()) {
        detail::balance(whole, [&](std::uint64_t b) { return work[b]; });
        const auto got = ex.run_blocks(
            std::span<const std::uint64_t>(whole), "multiway_merge", merge_kernel<K, V, Pairs>(items, s.d), grid, block,
            ps.heap_bytes, kl::gspan<const K>(in.keys), kl::gspan<const V>(in.vals), out.keys, out.vals, splits, s);
        for (std::size_t i = 0; i < whole.size(); ++i)
            samples.push_back({whole[i], work[whole[i]], got[i], own_known(whole[i])});
    }
    if (probe) {
        // One launch of four times the parts: block (g, q) probed on its first
        // x1 keys as (g, 4q) and on its first x2 as (g, 4q + 2), each reading
        // its prefix from its own splits.
        std::vector<std::uint64_t> chosen;
        for (auto i : ex.probe_blocks(big.size(), P::probes)) chosen.push_back(big[i]);
        merge_shape probe_shape = s;
        probe_shape.parts = 4 * s.parts;
        const kl::dim3 probe_grid{static_cast<unsigned>(ps.groups * probe_shape.parts)};
        std::vector<std::uint64_t> probe_splits(ps.groups * (probe_shape.parts + 1) * s.d, 0), ids;
        std::vector<sim::work_sample> probes;
        for (const auto b : chosen)
            for (const std::uint64_t x : {x1, x2}) {
                const auto r = detail::ranges_of(s, host_splits, b);
                const auto ends = detail::prefix_ends(ex, in.keys, r, x);
                const std::uint64_t g = b / s.parts, q = 4 * (b % s.parts) + (x == x1 ? 0 : 2);
                ids.push_back(g * probe_shape.parts + q);
                for (unsigned k = 0; k < s.d; ++k) {
                    probe_splits[(g * (probe_shape.parts + 1) + q) * s.d + k] = r.lo[k];
                    probe_splits[(g * (probe_shape.parts + 1) + q + 1) * s.d + k] = ends[k];
                }
                probes.push_back(
                    {b,
                     x,
                     {},
                     detail::moves_part(ex.machine(), probe_shape, threads, items, ids.back(), r.lo, ends, Pairs, memo)
                         .fixed});
            }
        std::vector<std::size_t> order(ids.size());
        std::iota(order.begin(), order.end(), std::size_t(0));
        detail::balance(order, [&](std::size_t i) { return probes[i].work; });
        std::vector<std::uint64_t> ordered_ids;
        for (auto i : order) ordered_ids.push_back(ids[i]);
        auto dev_splits = ex.alloc<std::uint64_t>(probe_splits.size());
        ex.upload(dev_splits, std::span<const std::uint64_t>(probe_splits));
        const auto got = ex.run_blocks(std::span<const std::uint64_t>(ordered_ids), "multiway_merge",
                                       merge_kernel<K, V, Pairs>(items, probe_shape.d), probe_grid, block,
                                       ps.heap_bytes, kl::gspan<const K>(in.keys), kl::gspan<const V>(in.vals),
                                       out.keys, out.vals, kl::gspan<const std::uint64_t>(dev_splits), probe_shape);
        for (std::size_t j = 0; j < order.size(); ++j) {
            probes[order[j]].at = got[j];
            samples.push_back(probes[order[j]]);
        }
    }
    // A block's typical keys: its range's mean over the whole groups (a
    // group's first range is about half the others, its last larger); the
    // last group's, when partial, its own.
    std::vector<double> typical(work.begin(), work.end());
    const std::uint64_t whole_groups = std::min<std::uint64_t>(ps.groups, s.n / (std::uint64_t(s.d) * s.run_len));
    if (whole_groups > 1)
        for (std::uint64_t q = 0; q < s.parts; ++q) {
            double mean = 0;
            for (std::uint64_t g = 0; g < whole_groups; ++g)
                mean += double(work[g * s.parts + q]) / double(whole_groups);
            for (std::uint64_t g = 0; g < whole_groups; ++g) typical[g * s.parts + q] = mean;
        }
    sim::work_launch launch;
    launch.name = "multiway_merge";
    launch.grid = grid;
    launch.block = block;
    launch.dynamic_shared_bytes = ps.heap_bytes;
    launch.work = work;
    launch.klass = klass;
    launch.typical_work = typical;
    launch.known = known;
    launch.samples = samples;
    launch.themselves = themselves;
    launch.known_variance = known_variance;
    ex.record_work_launch(launch);
}

// The sort of n random keys in sampled mode, on synthesized inputs; the
// outputs are not a sort of anything, so the check is not made.
template <class K, bool Pairs, class P = sampled_policy>
check_result merge_sort_synthesized(sim::executor& ex, std::uint64_t n, const plan_ns::sort_shape& shape,
                                    std::uint64_t seed) {
    using V = std::uint32_t;
    const auto pl = plan_ns::make_plan(ex.machine(), n, shape);
    const detail::synthesized_scope scope(ex);
    if (n > 0) {
        // One input region, refilled for each launch (block_sort's i.i.d.
        // keys, then each pass's runs): its pages are cleared once.
        const random_keys_synth<K> input(seed);
        sorted_spans<K, V> in{
            ex.alloc_synthesized<K>(n, [input](std::uint64_t f, std::uint64_t c, K* dst) { input.fill(f, c, dst); }),
            Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
        sorted_spans<K, V> out{ex.alloc_synthesized<K>(n), Pairs ? ex.alloc_synthesized<V>(n) : kl::gspan<V>{}};
        // block_sort's merge-path searches go where the keys say: sampled by the engine's strata.
        launch_block_sort<sim::executor, K, V, Pairs>(ex, pl, shape, kl::gspan<const K>(in.keys),
                                                      kl::gspan<const V>(in.vals), out);
        for (std::size_t i = 0; i < pl.passes.size(); ++i) {
            const auto& ps = pl.passes[i];
            const merge_shape s = pass_shape(n, ps, shape);
            const sorted_runs_synth<K> state(n, ps.run_len, mix_seed(seed, i + 1));
            ex.refill_synthesized(in.keys,
                                  [state](std::uint64_t f, std::uint64_t c, K* dst) { state.fill(f, c, dst); });
            kl::gspan<std::uint64_t> splits{};
            std::vector<bool> searched;
            if (ps.parts > 1) {
                // The distribution's launches record a few blocks and skip the
                // rest; every group's pivots and splits (the merges' ranges)
                // come from the host, checked against what the recorded blocks wrote.
                auto host = detail::synthesized_distribution(state, ps, s);
                const auto pivots = alloc_pivots<sim::executor, K>(ex, ps);
                splits = ex.alloc<std::uint64_t>(splits_size(ps));
                ex.set_sample_strata(P::split_strata);
                detail::unset(ex, pivots.tags);
                launch_select_pivots(ex, ps, s, kl::gspan<const K>(in.keys), pivots);
                detail::take_host(ex, pivots, host);
                detail::unset(ex, splits);
                launch_split_search(ex, ps, s, kl::gspan<const K>(in.keys), pivots, splits);
                detail::take_host(ex, splits, host.splits, "split_search's splits");
                ex.set_sample_strata(0);
                searched = std::move(host.searched);
            }
            synthesized_merge<K, V, Pairs, P>(ex, ps, shape, s, in, out, kl::gspan<const std::uint64_t>(splits),
                                              searched);
        }
        for (auto keys : {in.keys, out.keys}) ex.release_synthesized(keys);
        for (auto vals : {in.vals, out.vals}) ex.release_synthesized(vals);
    }
    return {true,
            "not checked: sampled mode synthesized every launch's input (runs of sorted i.i.d. uniform keys, "
            "in distribution what the sort of random keys reads) and ran only sampled blocks"};
}

// The simulator's run of sort/multiway and sort/pairwise: the synthesized
// sampled driver where it applies, the ordinary run otherwise.
inline check_result run_merge_sort_sim(sim::executor& ex, const std::string& key, std::uint64_t n,
                                       const param_values& p, std::uint64_t seed) {
    if (!ex.sampled() || !synthesizable(key, p)) return run_sort(ex, key, n, p, seed);
    const auto shape = plan_ns::shape_of(key, p);
    if (plan_ns::merge_sort_lanes(ex.machine(), plan_ns::make_plan(ex.machine(), n, shape), shape) <=
        sampled_policy::synthesize_lanes)
        return run_sort(ex, key, n, p, seed);
    if (p.text("type") == "float")
        return shape.pairs ? merge_sort_synthesized<float, true>(ex, n, shape, seed)
                           : merge_sort_synthesized<float, false>(ex, n, shape, seed);
    return shape.pairs ? merge_sort_synthesized<std::uint32_t, true>(ex, n, shape, seed)
                       : merge_sort_synthesized<std::uint32_t, false>(ex, n, shape, seed);
}

}  // namespace agpu::sim::sort_estimator
