// Closed-form AGPU costs of the micro-kernels (kernels/micro/micro.cuh): every
// counter the simulator records, exactly (sim/tests/exact_test.cpp compares
// them all on b = 32, 64 and 16), so that no run of a micro-kernel, at any
// size, needs the simulator.
//
// Every kernel but chase runs n threads in blocks of 256 (micro/barriers in
// blocks of its `threads`); a warp is b consecutive threads of a block; a
// thread with global index >= n touches no memory. Per warp with L live lanes:
//   global-stride  1 load of L words 4s bytes apart and 1 store of L
//                  consecutive words (op=store: 1 store 4s bytes apart):
//                  min(4s, 32)·L/32-ish sectors, min(s, b) blocks for a full warp
//   shared-stride  its share of the fill (conflict-free), 1 barrier, then
//                  `repeat` times a load of words l·s (the most in one bank:
//                  gcd(s, b) for a full warp) and 3 compute, and 1 store
//   broadcast      1 barrier; 1 shared load and 1 global load of one word, and
//                  1 store; thread 0 of a block loads one word and stores it
//   barriers       count barriers, dead warps included; 1 store
//   divergent      `ways` warp syncs; min(ways, L) stores, one per path
//   atomics        global: 1 atomic (per sector, the most lanes updating one
//                  address in it); shared: zero the counters, 2 barriers,
//                  1 atomic, then the block's counters out
//   chase          one thread: n loads and 1 store of one lane (1 sector,
//                  1 block each), n + 1 steps
// Time: a warp's steps are its instructions (a barrier, a warp sync and a
// global access 1; a shared access its wavefronts; compute(c) c), a block's its warps', and
// blocks go in order to the least-loaded of k MPs (the simulator's placement).
#include <algorithm>
#include <map>

#include "agpu/model/closed_form.hpp"

namespace agpu::model {
namespace {

constexpr std::uint64_t block_threads = 256;  // micro_policy::block_threads
constexpr std::uint64_t value_bytes = 4;      // every micro-kernel moves 4-byte values

// Units of `unit` bytes touched by `lanes` 4-byte accesses `stride` bytes
// apart from byte `start` (a multiple of 4): one a lane when the stride is a
// unit or more, otherwise every unit of the span.
std::uint64_t lane_units(std::uint64_t lanes, std::uint64_t start, std::uint64_t stride, std::uint64_t unit) {
    if (lanes == 0) return 0;
    if (stride >= unit) return lanes;
    return units(start, stride * (lanes - 1) + value_bytes, unit);
}

enum class op { load, store, atomic };

// What a global atomic costs: per sector, the most lanes updating one
// address in it (the simulator's atomic sectors), and the blocks it touches.
struct atomic_cost {
    std::uint64_t sectors = 0, blocks = 0;
};

atomic_cost global_atomic_cost(const std::vector<std::uint64_t>& bytes, std::uint64_t block_bytes) {
    lane_accesses acc;
    for (auto a : bytes) acc.emplace_back(a, std::uint32_t(value_bytes));
    return {atomic_sectors(acc), distinct_units(acc, block_bytes)};
}

// One launch, counted as the simulator counts it: each warp-instruction adds
// its counters, and its steps to its block's.
class launch_tally {
public:
    struct warp {
        std::uint64_t live;   // lanes with a global index below n
        std::uint64_t first;  // global index of lane 0
        std::uint64_t rank;   // index of lane 0 in its block
        std::uint64_t width;  // lanes (b, fewer in a block's last warp)
    };

    launch_tally(const machine& m, std::uint64_t n, std::uint64_t block = block_threads)
        : m_(m), n_(n), block_(block), steps_((n + block - 1) / block, 0), waits_(steps_.size(), 0),
          collectives_(steps_.size(), 0) {}

    const machine& device() const { return m_; }
    std::uint64_t block() const { return blk_; }

    // Calls fn(warp) for every warp of the grid, a block at a time.
    template <class Fn>
    void each_warp(Fn fn) {
        for (blk_ = 0; blk_ < steps_.size(); ++blk_)
            for (std::uint64_t rank = 0; rank < block_; rank += m_.b) {
                const std::uint64_t g = blk_ * block_ + rank, width = std::min<std::uint64_t>(m_.b, block_ - rank);
                fn(warp{g >= n_ ? 0 : std::min(width, n_ - g), g, rank, width});
            }
    }

    void barrier() {
        issue(counter::barrier_instructions);
        waits_[blk_] += 1;
    }
    void warp_sync() {
        issue(counter::collective_instructions);
        collectives_[blk_] += 1;
    }
    void compute(std::uint64_t k) {
        c_[counter::compute_instructions] += k;
        c_[counter::warp_instructions] += k;
        steps_[blk_] += k;
    }

    // A global load or store of `lanes` 4-byte values `stride` bytes apart from byte `start`.
    void global(op o, std::uint64_t lanes, std::uint64_t start, std::uint64_t stride = value_bytes) {
        const auto sectors = lane_units(lanes, start, stride, sector_bytes);
        const auto blocks = lane_units(lanes, start, stride, m_.block_bytes());
        add_global(c_, o == op::load, 1, sectors, blocks);
        c_[counter::io_blocks] += blocks;
        access(lanes, 1);
        if (o == op::load) waits_[blk_] += 1;
    }
    void global_atomic(std::uint64_t lanes, const atomic_cost& a) {
        c_[counter::global_atomic_instructions] += 1;
        c_[counter::global_atomic_sectors] += a.sectors;
        c_[counter::global_atomic_blocks] += a.blocks;
        c_[counter::io_blocks] += a.blocks;
        access(lanes, 1);
        waits_[blk_] += 1;
    }
    // A shared access of `lanes` lanes whose words cost `bc`: its wavefronts are its steps.
    void shared(op o, std::uint64_t lanes, const bank_cost& bc) {
        const std::uint64_t conflicts = bc.wf - bc.ideal;
        c_[counter::shared_wavefronts] += bc.wf;
        c_[counter::bank_conflicts] += conflicts;
        switch (o) {
            case op::load:
                c_[counter::shared_load_instructions] += 1;
                c_[counter::shared_load_wavefronts] += bc.wf;
                c_[counter::shared_load_bank_conflicts] += conflicts;
                break;
            case op::store:
                c_[counter::shared_store_instructions] += 1;
                c_[counter::shared_store_wavefronts] += bc.wf;
                c_[counter::shared_store_bank_conflicts] += conflicts;
                break;
            case op::atomic:
                c_[counter::shared_atomic_instructions] += 1;
                c_[counter::shared_atomic_wavefronts] += bc.wf;
                break;
        }
        access(lanes, bc.wf);
        if (o != op::store) waits_[blk_] += 1;
    }
    // The bank cost of `count` consecutive 4-byte values from value `first`.
    bank_cost consecutive(std::uint64_t first, std::uint64_t count) const {
        const std::uint64_t wb = m_.word_bytes();
        const std::uint64_t words = units(first * value_bytes, count * value_bytes, wb);
        const std::uint64_t wf = (words + m_.b - 1) / m_.b;
        return {wf, wf};
    }
    // The bank cost of these 4-byte values.
    bank_cost values(const std::vector<std::uint64_t>& index) const {
        std::vector<std::uint64_t> words;
        words.reserve(index.size());
        for (auto v : index) words.push_back(v * value_bytes / m_.word_bytes());
        return shared_bank_cost(std::move(words), m_.b);
    }

    // Every counter: the launch, its threads and blocks, its time, and the
    // most shared words a block holds.
    partial_counts finish(std::uint64_t shared_values = 0) {
        c_[counter::launches] = 1;
        c_[counter::thread_blocks] = steps_.size();
        c_[counter::threads] = steps_.size() * block_;
        c_[counter::time_steps] = greedy_makespan(steps_, m_.k());
        c_[counter::chain_waits] =
            launch_chain(waits_.empty() ? 0 : *std::max_element(waits_.begin(), waits_.end()), block_, m_.b);
        c_[counter::chain_collectives] = launch_chain(
            collectives_.empty() ? 0 : *std::max_element(collectives_.begin(), collectives_.end()), block_, m_.b);
        c_[counter::shared_words_max] = units(0, shared_values * value_bytes, m_.word_bytes());
        return every_counter(c_);
    }

private:
    void issue(counter kind) {
        c_[kind] += 1;
        c_[counter::warp_instructions] += 1;
        steps_[blk_] += 1;
    }
    void access(std::uint64_t lanes, std::uint64_t steps) {
        c_[counter::lane_accesses] += lanes;
        c_[counter::warp_instructions] += 1;
        steps_[blk_] += steps;
    }

    const machine& m_;
    std::uint64_t n_, block_, blk_ = 0;
    std::vector<std::uint64_t> steps_, waits_, collectives_;  // each block's
    counts c_;
};

partial_counts global_stride(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = static_cast<std::uint64_t>(p.integer("stride"));
    const bool store = p.text("op") == "store";
    launch_tally t(m, n);
    t.each_warp([&](const launch_tally::warp& w) {
        if (w.live == 0) return;
        const std::uint64_t strided = w.first * value_bytes * s;
        if (store) {
            t.global(op::store, w.live, strided, value_bytes * s);
        } else {
            t.global(op::load, w.live, strided, value_bytes * s);
            t.global(op::store, w.live, w.first * value_bytes);
        }
    });
    return t.finish();
}

partial_counts shared_stride(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t s = static_cast<std::uint64_t>(p.integer("stride"));
    const std::uint64_t repeat = static_cast<std::uint64_t>(p.integer("repeat"));
    const std::uint64_t size = m.b * s;                                      // values in the shared array
    std::map<std::pair<std::uint64_t, std::uint64_t>, bank_cost> read_cost;  // (live lanes, r) -> cost
    launch_tally t(m, n);
    t.each_warp([&](const launch_tally::warp& w) {
        for (std::uint64_t base = w.rank; base < size; base += block_threads) {  // the fill
            const std::uint64_t lanes = std::min(w.width, size - base);
            t.shared(op::store, lanes, t.consecutive(base, lanes));
        }
        t.barrier();
        if (w.live == 0) return;
        for (std::uint64_t r = 0; r < repeat; ++r) {
            auto [it, fresh] = read_cost.try_emplace({w.live, r});
            if (fresh) {
                std::vector<std::uint64_t> index;
                for (std::uint64_t l = 0; l < w.live; ++l) index.push_back((l + r) * s % size);
                it->second = t.values(index);
            }
            t.shared(op::load, w.live, it->second);
            t.compute(3);
        }
        t.global(op::store, w.live, w.first * value_bytes);
    });
    return t.finish(size);
}

partial_counts broadcast(const machine& m, std::uint64_t n, const param_values&) {
    launch_tally t(m, n);
    t.each_warp([&](const launch_tally::warp& w) {
        if (w.rank == 0) {  // thread 0: word = in[1]
            t.global(op::load, 1, value_bytes);
            t.shared(op::store, 1, t.consecutive(0, 1));
        }
        t.barrier();
        if (w.live == 0) return;
        t.shared(op::load, w.live, t.consecutive(0, 1));  // every lane reads word 0
        t.global(op::load, w.live, 0, 0);                 // and in[0]
        t.global(op::store, w.live, w.first * value_bytes);
    });
    return t.finish(1);
}

partial_counts barriers(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t count = static_cast<std::uint64_t>(p.integer("count"));
    launch_tally t(m, n, static_cast<std::uint64_t>(p.integer("threads")));
    t.each_warp([&](const launch_tally::warp& w) {
        for (std::uint64_t k = 0; k < count; ++k) t.barrier();
        if (w.live) t.global(op::store, w.live, w.first * value_bytes);
    });
    return t.finish();
}

partial_counts divergent(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t ways = static_cast<std::uint64_t>(p.integer("ways"));
    launch_tally t(m, n);
    t.each_warp([&](const launch_tally::warp& w) {
        for (std::uint64_t path = 0; path < ways; ++path) {
            if (path < w.live) {  // lanes path, path + ways, ... below L
                const std::uint64_t lanes = (w.live - path + ways - 1) / ways;
                t.global(op::store, lanes, (w.first + path) * value_bytes, ways * value_bytes);
            }
            t.warp_sync();
        }
    });
    return t.finish();
}

partial_counts atomics(const machine& m, std::uint64_t n, const param_values& p) {
    const std::uint64_t d = static_cast<std::uint64_t>(p.integer("distinct"));
    const bool global = p.text("space") == "global";
    launch_tally t(m, n);
    if (global) {
        std::map<std::pair<std::uint64_t, std::uint64_t>, atomic_cost> cost;  // (first mod d, live lanes) -> cost
        t.each_warp([&](const launch_tally::warp& w) {
            if (w.live == 0) return;
            auto [it, fresh] = cost.try_emplace({w.first % d, w.live});
            if (fresh) {
                std::vector<std::uint64_t> bytes;
                for (std::uint64_t l = 0; l < w.live; ++l) bytes.push_back((w.first + l) % d * value_bytes);
                it->second = global_atomic_cost(bytes, m.block_bytes());
            }
            t.global_atomic(w.live, it->second);
        });
        return t.finish();
    }
    std::map<std::pair<std::uint64_t, std::uint64_t>, bank_cost> cost;  // (first mod d, live lanes) -> cost
    t.each_warp([&](const launch_tally::warp& w) {
        // Lanes of the warp with rank < d own a counter.
        const std::uint64_t owners = w.rank < d ? std::min(w.width, d - w.rank) : 0;
        if (owners) t.shared(op::store, owners, t.consecutive(w.rank, owners));
        t.barrier();
        if (w.live) {
            auto [it, fresh] = cost.try_emplace({w.first % d, w.live});
            if (fresh) {
                std::vector<std::uint64_t> index;
                for (std::uint64_t l = 0; l < w.live; ++l) index.push_back((w.first + l) % d);
                it->second = t.values(index);
            }
            t.shared(op::atomic, w.live, it->second);
        }
        t.barrier();
        if (owners) {
            t.shared(op::load, owners, t.consecutive(w.rank, owners));
            t.global(op::store, owners, (t.block() * d + w.rank) * value_bytes);
        }
    });
    return t.finish(d);
}

partial_counts chase(const machine& m, std::uint64_t n, const param_values&) {
    counts c;
    add_global(c, true, n, n, n);
    add_global(c, false, 1, 1, 1);
    c[counter::io_blocks] = c[counter::lane_accesses] = c[counter::warp_instructions] = n + 1;
    c[counter::time_steps] = n + 1;
    c[counter::chain_waits] = launch_chain(n, 1, m.b);  // its loads
    c[counter::launches] = c[counter::thread_blocks] = c[counter::threads] = 1;
    return every_counter(c);
}

AGPU_REGISTER_CLOSED_FORM({"micro/global-stride",
                           "per warp of L lanes: 1 request, strided_units(L, 4s, 4, 32) sectors, "
                           "strided_units(L, 4s, 4, 4b) blocks (min(4s, 32) and min(s, b) for a full warp of 32)",
                           global_stride});
AGPU_REGISTER_CLOSED_FORM({"micro/shared-stride",
                           "per warp and read: the most words l*s in one bank (gcd(s, b) for a full warp), 3 compute",
                           shared_stride});
AGPU_REGISTER_CLOSED_FORM({"micro/broadcast", "per warp: 1 wavefront, 1 sector, 1 block", broadcast});
AGPU_REGISTER_CLOSED_FORM({"micro/barriers", "count barrier instructions per warp", barriers});
AGPU_REGISTER_CLOSED_FORM({"micro/divergent", "per warp: min(ways, L) store instructions, ways warp syncs", divergent});
AGPU_REGISTER_CLOSED_FORM({"micro/chase",
                           "1 launch of 1 thread: n loads and 1 store of one lane (1 sector, 1 block "
                           "each); time n + 1 steps",
                           chase});
AGPU_REGISTER_CLOSED_FORM({"micro/atomics", "per warp: 1 atomic instruction; the counters it touches", atomics});

}  // namespace
}  // namespace agpu::model
