// Closed-form AGPU costs of the scan family (kernels/scan/), exact: every
// counter the simulator fills except lane_accesses, at every n, on any
// machine (kernels/scan/tests/scan_test.cpp checks them against the simulator
// on b = 32, 64 and 16).
//
// Notation: s-byte elements (4 for u32, 8 for u64), b lanes, k MPs, 32-byte
// sectors, AGPU blocks of b words; W warps per thread block; a warp's "live"
// lanes are those whose element index is below n.
//
// scan/hillis-steele (B = 256 threads, one element each; levels n_0 = n,
// n_{l+1} = ceil(n_l / B) until n_l <= B; launches 2L - 1):
//   block scan, per block: per warp log2 B barriers, log2 B shared stores
//     (s/4 wavefronts each), log2 B shared loads (1 wavefront for u32; the
//     most words in one bank for u64), log2 B compute steps; per warp with
//     L > 0 live lanes 1 load and 1 store of L·s contiguous bytes; on every
//     level but the top, 1 store of the block's total.
//   add-back, blocks 1..ceil(n_l/B)-1 of each level below the top: per live
//     warp 1 load + 1 store of L·s bytes and 1 load of the one broadcast sum.
//   I/O about 4·s·n/(4b)·(1 + 1/B + ...) blocks; time (log2 B)(3W + ...) steps
//   per block, the blocks spread greedily over k MPs.
// scan/work-efficient (tile = threads × items elements, V = items·s/16
// vectors per thread, T = ceil(n / tile) tiles; launches 2):
//   init: one store per live lane of T flag words (8 bytes for u32, 4 for u64)
//     and one of the tile counter.
//   scan, per tile: 1 atomic; 3W barriers; per warp V vector loads and V
//     vector stores of 16b bytes (b/2 sectors, 4 blocks at w = 32), V(log2 b
//     + 1) + ceil(log2 W) + 2 shuffles, V(2·16/s + 1) compute steps, 3 shared
//     loads and 1 shared store; warp 0 also 2 shared stores and the status:
//     tile 0 publishes its prefix (1 exchange; u64 a value store and a flag
//     exchange), tile t >= 1 publishes its aggregate and its prefix (2
//     exchanges; u64 2 stores and 2 exchanges) and reads
//     m = min(b, t) status words t-m..t-1 in one load (the sectors they span;
//     u64: plus the 8-byte value of tile t-1) with 2 ballots and log2 b
//     shuffles. The last tile, if partial, moves only its whole vectors as
//     vectors and the one vector that straddles n element by element.
//   I/O 2·s·n/(4b) blocks plus O(T); time per tile about
//     W·(5V + 16V/s + V·log2 b + 3 log2 b + 10) steps, T/k tiles per MP.
// The simulator runs blocks one after another, so a look-back there always
// finds tile t-1's inclusive prefix in its first window; on a GPU it may poll
// again or go back further (kernels/scan/README.md).
#include <algorithm>
#include <array>
#include <bit>
#include <queue>
#include <string>
#include <vector>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {
namespace {

std::uint64_t ceil_log2(std::uint64_t x) { return x <= 1 ? 0 : std::uint64_t(std::bit_width(x - 1)); }

enum class access { load, store, atomic };

// The simulator's counters and steps of one thread block (or a sum of blocks).
class tally {
public:
    explicit tally(const machine& m) : m_m(&m) {}

    std::uint64_t& operator[](counter k) { return m_c[static_cast<std::size_t>(k)]; }
    std::uint64_t steps() const { return m_steps; }
    std::uint64_t waits() const {
        counts c;
        c.v = m_c;
        return block_waits(c);
    }
    std::uint64_t collectives() const {
        counts c;
        c.v = m_c;
        return block_collectives(c);
    }

    // One global warp-instruction over the contiguous bytes [first, first + bytes)
    // (an atomic: of one lane).
    void global(access a, std::uint64_t first, std::uint64_t bytes) {
        const std::uint64_t sectors = units(first, bytes, sector_bytes),
                            blocks = units(first, bytes, m_m->block_bytes());
        instruction(1);
        (*this)[counter::io_blocks] += blocks;
        if (a == access::atomic) {
            (*this)[counter::global_atomic_instructions] += 1;
            (*this)[counter::global_atomic_sectors] += sectors;
            (*this)[counter::global_atomic_blocks] += blocks;
            return;
        }
        add_global(*this, a == access::load, 1, sectors, blocks);
    }
    // One shared warp-instruction of `wavefronts` wavefronts.
    // `ideal`: the fewest wavefronts its distinct words need, ceil(words / b);
    // the rest are bank conflicts.
    void shared(access a, std::uint64_t wavefronts, std::uint64_t ideal = 1) {
        m_c[idx(counter::warp_instructions)] += 1;
        m_steps += wavefronts;
        add_shared(*this, a == access::load ? shared_op::load : shared_op::store, 1, {wavefronts, ideal});
    }
    void barriers(std::uint64_t n) {
        (*this)[counter::barrier_instructions] += n;
        instruction(n);
    }
    void collectives(std::uint64_t n) {
        (*this)[counter::collective_instructions] += n;
        instruction(n);
    }
    void compute(std::uint64_t n) {
        (*this)[counter::compute_instructions] += n;
        instruction(n);
    }
    // Adds `times` copies of another tally (its steps too).
    void add(const tally& o, std::uint64_t times = 1) {
        for (std::size_t i = 0; i < counter_count; ++i) m_c[i] += o.m_c[i] * times;
        m_steps += o.m_steps * times;
    }
    void merge_into(partial_counts& out) const {
        for (std::size_t i = 0; i < counter_count; ++i)
            if (m_c[i]) out[static_cast<counter>(i)] += m_c[i];
    }

private:
    static std::size_t idx(counter k) { return static_cast<std::size_t>(k); }
    void instruction(std::uint64_t n) {
        m_c[idx(counter::warp_instructions)] += n;
        m_steps += n;
    }
    const machine* m_m;
    std::array<std::uint64_t, counter_count> m_c{};
    std::uint64_t m_steps = 0;
};

// One shared warp-instruction whose lanes touch `bytes` bytes at each of
// `offsets`: the bank rule on the words they touch.
bank_cost shared_cost(const std::vector<std::uint64_t>& offsets, std::uint64_t bytes, const machine& m) {
    std::vector<std::uint64_t> words;
    const std::uint64_t wb = m.word_bytes();
    for (auto o : offsets)
        for (std::uint64_t w = o / wb; w <= (o + bytes - 1) / wb; ++w) words.push_back(w);
    return shared_bank_cost(words, m.b);
}

// One launch: its blocks' tallies by run, into the totals.
struct launch_sum {
    std::vector<std::pair<std::uint64_t, std::uint64_t>> runs;  // (steps, blocks)
    std::uint64_t blocks = 0, threads_per_block = 0, shared_words = 0;
    std::uint64_t heaviest_waits = 0, heaviest_collectives = 0;  // the most waits (collectives) of a block
};

void finish_launch(const launch_sum& l, const tally& t, const machine& m, partial_counts& out) {
    t.merge_into(out);
    out[counter::launches] += 1;
    out[counter::thread_blocks] += l.blocks;
    out[counter::threads] += l.blocks * l.threads_per_block;
    out[counter::time_steps] += greedy_makespan_runs(l.runs, m.k());
    out[counter::chain_waits] += launch_chain(l.heaviest_waits, l.threads_per_block, m.b);
    out[counter::chain_collectives] += launch_chain(l.heaviest_collectives, l.threads_per_block, m.b);
    out[counter::shared_words_max] = std::max(out[counter::shared_words_max], l.shared_words);
}

// ---- scan/hillis-steele ----

constexpr std::uint64_t hs_block = 256;  // hillis_steele_policy::block_threads

// Block `blk` of the block scan of `n` elements; `sums`: it writes its total.
tally hs_block_scan(const machine& m, std::uint64_t s, std::uint64_t n, std::uint64_t blk, bool sums) {
    tally t(m);
    const std::uint64_t b = m.b, warps = hs_block / b;
    for (std::uint64_t w = 0; w < warps; ++w) {
        const std::uint64_t first = blk * hs_block + w * b;
        const std::uint64_t live = first >= n ? 0 : std::min(b, n - first);
        if (live) t.global(access::load, first * s, live * s);
        std::vector<std::uint64_t> own;
        for (std::uint64_t l = 0; l < b; ++l) own.push_back((w * b + l) * s);
        const bank_cost store = shared_cost(own, s, m);
        const std::uint64_t store_wf = store.wf, store_ideal = store.ideal;
        t.shared(access::store, store_wf, store_ideal);  // the first store
        for (std::uint64_t d = 1; d < hs_block; d *= 2) {
            t.barriers(1);
            std::vector<std::uint64_t> left;  // only lanes i >= d load
            for (std::uint64_t l = 0; l < b; ++l)
                if (const std::uint64_t i = w * b + l; i >= d) left.push_back((i - d) * s);
            if (!left.empty()) {
                const bank_cost lc = shared_cost(left, s, m);
                t.shared(access::load, lc.wf, lc.ideal);
            }
            t.compute(1);
            if (2 * d < hs_block) t.shared(access::store, store_wf, store_ideal);
        }
        if (live) t.global(access::store, first * s, live * s);
    }
    if (sums) t.global(access::store, blk * s, s);
    return t;
}

// Block `blk` (>= 1) of the add-back of `n` elements.
tally hs_add_back(const machine& m, std::uint64_t s, std::uint64_t n, std::uint64_t blk) {
    tally t(m);
    const std::uint64_t b = m.b;
    for (std::uint64_t w = 0; w < hs_block / b; ++w) {
        const std::uint64_t first = blk * hs_block + w * b;
        const std::uint64_t live = first >= n ? 0 : std::min(b, n - first);
        if (!live) continue;
        t.global(access::load, first * s, live * s);
        t.global(access::load, blk * s, s);
        t.global(access::store, first * s, live * s);
    }
    return t;
}

// A launch of `blocks` blocks numbered from `first_block`, of which all but the
// first and the last are alike: kernel(b) gives block b's tally.
template <class Kernel>
void launch_of(const machine& m, std::uint64_t first_block, std::uint64_t blocks, std::uint64_t threads,
               std::uint64_t shared_words, Kernel kernel, partial_counts& out) {
    launch_sum l;
    l.blocks = blocks;
    l.threads_per_block = threads;
    l.shared_words = shared_words;
    tally total(m);
    auto run = [&](const tally& t, std::uint64_t times) {
        total.add(t, times);
        l.runs.push_back({t.steps(), times});
        l.heaviest_waits = std::max(l.heaviest_waits, t.waits());
        l.heaviest_collectives = std::max(l.heaviest_collectives, t.collectives());
    };
    run(kernel(first_block), 1);
    if (blocks > 2) run(kernel(first_block + 1), blocks - 2);
    if (blocks > 1) run(kernel(first_block + blocks - 1), 1);
    finish_launch(l, total, m, out);
}

partial_counts hillis_steele(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = p.text("type") == "u64" ? 8 : 4;
    std::vector<std::uint64_t> levels{n};
    while (levels.back() > hs_block) levels.push_back((levels.back() + hs_block - 1) / hs_block);
    partial_counts c;
    const std::uint64_t shared_words = (2 * hs_block * s + m.word_bytes() - 1) / m.word_bytes();
    for (std::size_t l = 0; l < levels.size(); ++l) {
        const std::uint64_t nl = levels[l], blocks = (nl + hs_block - 1) / hs_block;
        const bool sums = l + 1 < levels.size();
        launch_of(
            m, 0, blocks, hs_block, shared_words, [&](std::uint64_t blk) { return hs_block_scan(m, s, nl, blk, sums); },
            c);
    }
    for (std::size_t l = levels.size() - 1; l-- > 0;) {
        const std::uint64_t nl = levels[l], blocks = (nl + hs_block - 1) / hs_block;
        launch_of(
            m, 1, blocks - 1, hs_block, 0, [&](std::uint64_t blk) { return hs_add_back(m, s, nl, blk); }, c);
    }
    return c;
}

// ---- scan/work-efficient ----

constexpr std::uint64_t init_threads = 256;  // chained_policy::init_threads
constexpr std::uint64_t max_warps = 32;      // chained_policy::max_warps
constexpr std::uint64_t vector_bytes = 16;

struct chained_shape {
    std::uint64_t s, width, threads, items, vectors, warps, tile, tiles;
    bool packed;  // u32: flag and value in one 8-byte word
};

chained_shape shape_of(const machine& m, std::uint64_t n, const param_values& p) {
    chained_shape c{};
    c.s = p.text("type") == "u64" ? 8 : 4;
    c.width = vector_bytes / c.s;
    const std::string threads = p.text("threads");  // auto: as kernels/scan/scan_runs.hpp's chained_threads
    c.threads = threads == "auto" ? std::min<std::uint64_t>(512, m.b * m.b) : std::stoull(threads);
    c.items = std::stoull(p.text("items"));
    c.vectors = c.items / c.width;
    c.warps = c.threads / m.b;
    c.tile = c.threads * c.items;
    c.tiles = (n + c.tile - 1) / c.tile;
    c.packed = c.s == 4;
    return c;
}

// Tile `t` of the scan, without its look-back load (look_back_load adds it).
tally chained_tile(const machine& m, const chained_shape& c, std::uint64_t n, std::uint64_t t) {
    tally x(m);
    const std::uint64_t b = m.b;
    const std::uint64_t tile_vectors = c.threads * c.vectors, whole = n / c.width;
    const bool full = (t + 1) * tile_vectors <= whole;
    // Shared words of the static arrays: tile_id (4 bytes), warp_totals, tile_before.
    const std::uint64_t totals_at = (4 + c.s - 1) / c.s * c.s;
    const std::vector<std::uint64_t> totals = [&] {
        std::vector<std::uint64_t> o;
        for (std::uint64_t l = 0; l < c.warps; ++l) o.push_back(totals_at + l * c.s);
        return o;
    }();
    const bank_cost totals_cost = shared_cost(totals, c.s, m);
    const std::uint64_t totals_wf = totals_cost.wf, totals_ideal = totals_cost.ideal;
    const std::uint64_t shuffles = c.vectors * (ceil_log2(b) + 1) + ceil_log2(c.warps) + 2;
    // Data moves of warp w: `vector` for each vector instruction's live lanes, `scalar` per straddling element.
    auto data = [&](std::uint64_t w, access a) {
        for (std::uint64_t j = 0; j < c.vectors; ++j) {
            const std::uint64_t first = t * tile_vectors + w * b * c.vectors + j * b;
            const std::uint64_t live = full ? b : (first >= whole ? 0 : std::min(b, whole - first));
            if (live) x.global(a, first * vector_bytes, live * vector_bytes);
            if (!full && whole >= first && whole < first + b)  // the vector that straddles n
                for (std::uint64_t e = whole * c.width; e < n; ++e) x.global(a, e * c.s, c.s);
        }
    };
    for (std::uint64_t w = 0; w < c.warps; ++w) {
        if (w == 0) {
            x.global(access::atomic, 0, 4);
            x.shared(access::store, 1);
        }
        x.barriers(1);
        x.shared(access::load, 1);  // the tile id
        data(w, access::load);
        x.compute(c.vectors * (c.width - 1) + 2 * c.vectors);
        x.collectives(shuffles);
        x.shared(access::store, 1);  // the warp's total
        x.barriers(1);
        x.shared(access::load, totals_wf, totals_ideal);
        if (w == 0) {
            // Publishing: u32 one 8-byte word by exchange; u64 the 8-byte value (a store), then the
            // 4-byte flag by exchange.
            auto publish = [&] {
                if (c.packed) {
                    x.global(access::atomic, t * 8, 8);
                } else {
                    x.global(access::store, t * 8, 8);
                    x.global(access::atomic, t * 4, 4);
                }
            };
            publish();
            if (t > 0) {
                x.collectives(2 + ceil_log2(b));  // the ballots and the warp sum (the load: look_back_load)
                if (!c.packed) x.global(access::load, (t - 1) * 8, 8);
                publish();
            }
            x.shared(access::store, 1);  // the tile's prefix
        }
        x.barriers(1);
        x.shared(access::load, 1);
        data(w, access::store);
        x.compute(c.vectors * c.width);
    }
    return x;
}

// The status words tiles t-m..t-1 (m = min(b, t)) that tile t's look-back reads in one load.
void look_back_load(tally& x, const machine& m, const chained_shape& c, std::uint64_t t) {
    const std::uint64_t words = std::min<std::uint64_t>(m.b, t), bytes = c.packed ? 8 : 4;
    x.global(access::load, (t - words) * bytes, words * bytes);
}

partial_counts work_efficient(const machine& m, std::uint64_t n, const param_values& p) {
    const chained_shape c = shape_of(m, n, p);
    partial_counts out;
    // init_tile_status: one flag word per thread, the counter by thread 0.
    const std::uint64_t flag_bytes = c.packed ? 8 : 4, init_blocks = (c.tiles + init_threads - 1) / init_threads;
    launch_of(
        m, 0, init_blocks, init_threads, 0,
        [&](std::uint64_t blk) {
            tally x(m);
            for (std::uint64_t w = 0; w < (init_threads + m.b - 1) / m.b; ++w) {
                const std::uint64_t first = blk * init_threads + w * m.b;
                const std::uint64_t live = first >= c.tiles ? 0 : std::min<std::uint64_t>(m.b, c.tiles - first);
                if (live) x.global(access::store, first * flag_bytes, live * flag_bytes);
                if (blk == 0 && w == 0) x.global(access::store, 0, 4);
            }
            return x;
        },
        out);
    // chained_scan: tile 0; the tiles with a look-back, alike but for which
    // status words they read; the last one, maybe partial.
    launch_sum l;
    l.blocks = c.tiles;
    l.threads_per_block = c.threads;
    const std::uint64_t shared_bytes = c.packed ? 4 + max_warps * 4 + 4 : 8 + max_warps * 8 + 8;
    l.shared_words = (shared_bytes + m.word_bytes() - 1) / m.word_bytes();
    tally total(m);
    const tally first = chained_tile(m, c, n, 0);
    total.add(first);
    l.runs.push_back({first.steps(), 1});
    l.heaviest_waits = first.waits();
    l.heaviest_collectives = first.collectives();
    if (c.tiles > 2) {
        const tally middle = chained_tile(m, c, n, 1);
        total.add(middle, c.tiles - 2);
        for (std::uint64_t t = 1; t + 1 < c.tiles; ++t) look_back_load(total, m, c, t);
        l.runs.push_back({middle.steps() + 1, c.tiles - 2});
        l.heaviest_waits = std::max(l.heaviest_waits, middle.waits() + 1);  // and its look-back load
        l.heaviest_collectives = std::max(l.heaviest_collectives, middle.collectives());
    }
    if (c.tiles > 1) {
        tally last = chained_tile(m, c, n, c.tiles - 1);
        look_back_load(last, m, c, c.tiles - 1);
        total.add(last);
        l.runs.push_back({last.steps(), 1});
        l.heaviest_waits = std::max(l.heaviest_waits, last.waits());
        l.heaviest_collectives = std::max(l.heaviest_collectives, last.collectives());
    }
    finish_launch(l, total, m, out);
    return out;
}

AGPU_REGISTER_CLOSED_FORM({"scan/hillis-steele",
                           "levels n, n/256, ... down to one block: per level a block scan (per warp log2 256 "
                           "barriers, shared loads and stores; 1 load + 1 store per live warp; the block total) and, "
                           "below the top, an add-back (2 loads + 1 store per live warp); 2L - 1 launches",
                           hillis_steele});
AGPU_REGISTER_CLOSED_FORM({"scan/work-efficient",
                           "2 launches; per tile of threads x items: 1 atomic, 3W barriers, per warp items*s/16 "
                           "vector loads and stores (b/2 sectors each), 2 status exchanges and a look-back load of "
                           "min(b, t) status words (u64: 2 stores, 2 exchanges, 2 loads); init: T flag words",
                           work_efficient});

}  // namespace
}  // namespace agpu::model
