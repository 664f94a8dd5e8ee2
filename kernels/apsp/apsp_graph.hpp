// apsp inputs and CPU references (host only).
//
// Inputs, from a seed (graph=...):
//   sparse    n vertices, 4n random directed edges u -> v (u != v), weights
//             1..100; parallel edges keep the lightest;
//   dense     every ordered pair an edge, weights 1..100;
//   negative  the sparse graph with weights w0 in 0..100, reweighted by random
//             potentials p(v) in 0..100: w(u, v) = w0(u, v) + p(u) - p(v), in
//             -100..200. Every cycle keeps its w0 weight (>= 0): negative
//             edges, no negative cycle.
// The distance matrix: 0 on the diagonal, the weight where there is an edge,
// inf (apsp_common.cuh) elsewhere; padded to a multiple of the tile with inf
// (0 on the padded diagonal): padded vertices are isolated and change nothing.
//
// References:
//   fw_reference  plain Floyd-Warshall on the CPU with the kernels' rule
//                 (int32 arithmetic, missing edges weigh inf): the exact
//                 matrix every variant must produce, bit for bit;
//   true_row      Dijkstra from one vertex (on w0 for the negative graph,
//                 shifted back by the potentials), in 64 bits with a real
//                 infinity: the true distances, for checks at sizes where an
//                 n³ CPU reference would take minutes. A raw value v then
//                 means "no path" iff v > inf / 2.
#pragma once

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "agpu/errors.hpp"
#include "apsp/apsp_common.cuh"

namespace agpu::kernels::apsp {

enum class graph_kind { sparse, dense, negative };

inline graph_kind parse_graph_kind(const std::string& s) {
    if (s == "sparse") return graph_kind::sparse;
    if (s == "dense") return graph_kind::dense;
    if (s == "negative") return graph_kind::negative;
    throw input_error("option --set graph", "must be sparse, dense or negative, got '" + s + "'");
}

struct graph {
    static constexpr std::int32_t no_edge = std::numeric_limits<std::int32_t>::min();
    graph_kind kind = graph_kind::sparse;
    std::uint32_t n = 0;
    std::uint64_t seed = 0;
    std::vector<std::int32_t> w;          // n x n edge weights, no_edge where there is none, 0 on the diagonal
    std::vector<std::int32_t> potential;  // negative graphs: p(v); empty otherwise
};

inline graph make_graph(graph_kind kind, std::uint32_t n, std::uint64_t seed) {
    graph g;
    g.kind = kind;
    g.n = n;
    g.seed = seed;
    g.w.assign(std::size_t(n) * n, graph::no_edge);
    std::mt19937_64 rng(seed * 0x9e3779b97f4a7c15ull + static_cast<std::uint64_t>(kind) + 1);
    const auto draw = [&rng](std::uint64_t m) { return static_cast<std::uint32_t>(rng() % m); };
    if (kind == graph_kind::dense) {
        for (std::uint32_t i = 0; i < n; ++i)
            for (std::uint32_t j = 0; j < n; ++j)
                g.w[std::size_t(i) * n + j] = i == j ? 0 : std::int32_t(1 + draw(100));
        return g;
    }
    if (kind == graph_kind::negative) {
        g.potential.resize(n);
        for (auto& p : g.potential) p = std::int32_t(draw(101));
    }
    for (std::uint32_t i = 0; i < n; ++i) g.w[std::size_t(i) * n + i] = 0;
    if (n >= 2)
        for (std::uint64_t e = 0; e < 4 * std::uint64_t(n); ++e) {
            const std::uint32_t u = draw(n);
            std::uint32_t v = draw(n);
            while (v == u) v = draw(n);
            std::int32_t wt = kind == graph_kind::negative ? std::int32_t(draw(101)) : std::int32_t(1 + draw(100));
            if (kind == graph_kind::negative) wt += g.potential[u] - g.potential[v];
            auto& cell = g.w[std::size_t(u) * n + v];
            if (cell == graph::no_edge || wt < cell) cell = wt;
        }
    return g;
}

// The last graph made, kept: a timed GPU run regenerates its inputs for every
// repetition, and a dense graph of 8192 vertices takes a second to draw.
inline const graph& cached_graph(graph_kind kind, std::uint32_t n, std::uint64_t seed) {
    static thread_local graph last;
    if (last.w.empty() || last.kind != kind || last.n != n || last.seed != seed) last = make_graph(kind, n, seed);
    return last;
}

// The padded distance matrix, np x np, of T with missing edges at `inf`.
template <class T>
std::vector<T> distance_matrix(const graph& g, std::uint32_t np, T inf) {
    std::vector<T> d(std::size_t(np) * np, inf);
    for (std::uint32_t i = 0; i < np; ++i) d[std::size_t(i) * np + i] = 0;
    for (std::uint32_t i = 0; i < g.n; ++i)
        for (std::uint32_t j = 0; j < g.n; ++j) {
            const std::int32_t w = g.w[std::size_t(i) * g.n + j];
            if (w != graph::no_edge) d[std::size_t(i) * np + j] = static_cast<T>(w);
        }
    return d;
}

// Floyd-Warshall with the kernels' rule: n x n, int32, missing edges at `inf`.
inline std::vector<std::int32_t> fw_reference(const graph& g, std::int32_t inf) {
    const std::uint32_t n = g.n;
    std::vector<std::int32_t> d = distance_matrix<std::int32_t>(g, n, inf);
    for (std::uint32_t k = 0; k < n; ++k) {
        const std::int32_t* dk = d.data() + std::size_t(k) * n;
        for (std::uint32_t i = 0; i < n; ++i) {
            std::int32_t* di = d.data() + std::size_t(i) * n;
            const std::int32_t dik = di[k];
            for (std::uint32_t j = 0; j < n; ++j) di[j] = std::min(di[j], dik + dk[j]);
        }
    }
    return d;
}

inline constexpr std::int64_t no_path = std::numeric_limits<std::int64_t>::max();

// True distances from s (64 bits, no_path where unreachable): Dijkstra in
// O(n²) on the non-negative weights w0 = w - p(u) + p(v), shifted back.
inline std::vector<std::int64_t> true_row(const graph& g, std::uint32_t s) {
    const std::uint32_t n = g.n;
    const bool shifted = !g.potential.empty();
    std::vector<std::int64_t> dist(n, no_path);
    std::vector<char> done(n, 0);
    dist[s] = 0;
    for (std::uint32_t round = 0; round < n; ++round) {
        std::uint32_t u = n;
        for (std::uint32_t v = 0; v < n; ++v)
            if (!done[v] && dist[v] != no_path && (u == n || dist[v] < dist[u])) u = v;
        if (u == n) break;
        done[u] = 1;
        const std::int32_t* wu = g.w.data() + std::size_t(u) * n;
        for (std::uint32_t v = 0; v < n; ++v) {
            if (wu[v] == graph::no_edge || done[v]) continue;
            const std::int64_t w0 = shifted ? std::int64_t(wu[v]) - g.potential[u] + g.potential[v] : wu[v];
            dist[v] = std::min(dist[v], dist[u] + w0);
        }
    }
    if (shifted)
        for (std::uint32_t v = 0; v < n; ++v)
            if (dist[v] != no_path) dist[v] += g.potential[s] - g.potential[v];
    return dist;
}

// Plain Floyd-Warshall in 64 bits with a real infinity (tests: the kernels'
// rule, read with the inf / 2 threshold, must agree with it).
inline std::vector<std::int64_t> fw_true(const graph& g) {
    const std::uint32_t n = g.n;
    std::vector<std::int64_t> d(std::size_t(n) * n, no_path);
    for (std::size_t x = 0; x < d.size(); ++x)
        if (g.w[x] != graph::no_edge) d[x] = g.w[x];
    for (std::uint32_t k = 0; k < n; ++k)
        for (std::uint32_t i = 0; i < n; ++i) {
            const std::int64_t dik = d[std::size_t(i) * n + k];
            if (dik == no_path) continue;
            for (std::uint32_t j = 0; j < n; ++j) {
                const std::int64_t dkj = d[std::size_t(k) * n + j];
                if (dkj != no_path) d[std::size_t(i) * n + j] = std::min(d[std::size_t(i) * n + j], dik + dkj);
            }
        }
    return d;
}

}  // namespace agpu::kernels::apsp
