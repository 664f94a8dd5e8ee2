// How often each basic block of a kernel's SASS runs, from the simulator's
// per-site counts (estimate_instructions, model/sass.hpp): a flow problem on
// the kernel's control-flow graph, solved by non-negative least squares.
#include <algorithm>
#include <map>

#include <Eigen/Sparse>

#include "agpu/errors.hpp"
#include "agpu/model/sass.hpp"

namespace agpu::model {

// ---------------------------------------------------------------- block counts

namespace {

// The blocks of a kernel and of every subroutine it reaches, numbered together.
struct flow_graph {
    std::vector<const sass_block*> blocks;
    std::vector<std::uint32_t> function_start;  // per function, its first block's index
    std::vector<std::pair<std::uint32_t, std::uint32_t>> edges;
    std::vector<std::uint32_t> exit_edges;  // blocks that may leave their function part-way (a guarded exit)
    std::vector<std::pair<std::uint32_t, std::uint32_t>> calls;  // caller block -> callee entry
};

flow_graph build_graph(const sass_module& m, const sass_function& kernel) {
    flow_graph g;
    std::map<std::string, std::uint32_t> placed;
    std::vector<const sass_function*> todo{&kernel};
    std::vector<std::string> names{""};
    for (std::size_t fi = 0; fi < todo.size(); ++fi) {
        const auto base = static_cast<std::uint32_t>(g.blocks.size());
        g.function_start.push_back(base);
        for (const auto& b : todo[fi]->blocks) g.blocks.push_back(&b);
        for (std::uint32_t i = 0; i < todo[fi]->blocks.size(); ++i) {
            const auto& b = todo[fi]->blocks[i];
            for (auto s : b.successors) g.edges.push_back({base + i, base + s});
            if (b.exits && !b.successors.empty()) g.exit_edges.push_back(base + i);
            if (!b.calls.empty()) {
                auto it = placed.find(b.calls);
                if (it == placed.end()) {
                    const auto sub = m.subroutines.find(b.calls);
                    if (sub == m.subroutines.end() || sub->second.blocks.empty()) continue;
                    it = placed.emplace(b.calls, std::uint32_t(todo.size())).first;
                    todo.push_back(&sub->second);
                    names.push_back(b.calls);
                }
                g.calls.push_back({base + i, it->second});  // the callee's function index, resolved below
            }
        }
    }
    for (auto& c : g.calls) c.second = g.function_start[c.second];
    return g;
}

}  // namespace

namespace {

// min |Mx - b| over x >= 0 for a sparse M (Lawson and Hanson's active set,
// each least-squares step by a sparse Cholesky factorisation of the normal
// equations, with a tiny ridge for the columns no row pins).
Eigen::VectorXd sparse_nnls(const Eigen::SparseMatrix<double>& M, const Eigen::VectorXd& b) {
    const Eigen::Index n = M.cols();
    const Eigen::SparseMatrix<double> MtM = (M.transpose() * M).pruned();
    const Eigen::VectorXd Mtb = M.transpose() * b;
    double diag = 0;
    for (Eigen::Index i = 0; i < n; ++i) diag = std::max(diag, MtM.coeff(i, i));
    const double ridge = 1e-12 * std::max(1.0, diag);
    std::vector<bool> free(std::size_t(n), true);
    Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
    for (int round = 0; round < 200; ++round) {
        // Least squares over the free columns (the fixed ones held at 0).
        std::vector<Eigen::Index> cols;
        std::vector<Eigen::Index> at(std::size_t(n), -1);
        for (Eigen::Index i = 0; i < n; ++i)
            if (free[std::size_t(i)]) at[std::size_t(i)] = Eigen::Index(cols.size()), cols.push_back(i);
        std::vector<Eigen::Triplet<double>> t;
        for (Eigen::Index k = 0; k < MtM.outerSize(); ++k)
            for (Eigen::SparseMatrix<double>::InnerIterator it(MtM, k); it; ++it) {
                const auto i = at[std::size_t(it.row())], j = at[std::size_t(it.col())];
                if (i >= 0 && j >= 0) t.emplace_back(i, j, it.value());
            }
        const auto m = Eigen::Index(cols.size());
        for (Eigen::Index i = 0; i < m; ++i) t.emplace_back(i, i, ridge);
        Eigen::SparseMatrix<double> S(m, m);
        S.setFromTriplets(t.begin(), t.end());
        Eigen::VectorXd rhs(m);
        for (Eigen::Index i = 0; i < m; ++i) rhs(i) = Mtb(cols[std::size_t(i)]);
        Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> ldlt(S);
        const Eigen::VectorXd y = ldlt.solve(rhs);
        Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
        for (Eigen::Index i = 0; i < m; ++i) z(cols[std::size_t(i)]) = y(i);
        // Step from x towards z as far as every free variable stays non-negative; those reaching 0 are fixed.
        double alpha = 1;
        for (auto c : cols)
            if (z(c) < 0) alpha = std::min(alpha, x(c) / (x(c) - z(c)));
        x += alpha * (z - x);
        bool fixed_any = false;
        for (auto c : cols)
            if (x(c) <= 1e-12 && z(c) < 0) x(c) = 0, free[std::size_t(c)] = false, fixed_any = true;
        if (fixed_any) continue;
        // Optimal where no fixed variable's gradient asks to grow; else free the one that asks most.
        const Eigen::VectorXd w = Mtb - MtM * x;
        Eigen::Index best = -1;
        double most = 1e-9 * std::max(1.0, Mtb.cwiseAbs().maxCoeff());
        for (Eigen::Index i = 0; i < n; ++i)
            if (!free[std::size_t(i)] && w(i) > most) most = w(i), best = i;
        if (best < 0) break;
        free[std::size_t(best)] = true;
    }
    return x.cwiseMax(0.0);
}

}  // namespace

sass_estimate estimate_instructions(const sass_module& m, const std::string& kernel, const sass_launch_counts& counts) {
    const auto kit = m.kernels.find(kernel);
    if (kit == m.kernels.end()) throw input_error("sass", "no kernel " + kernel + " in the SASS");
    const flow_graph g = build_graph(m, kit->second);
    const std::size_t nb = g.blocks.size(), ne = g.edges.size(), nx = g.exit_edges.size();
    const std::size_t nv = nb + ne + nx;
    const double w = std::max<double>(1.0, double(counts.warps));

    // The anchors of each counted site, over the whole graph; sites of the kernel not counted run 0 times.
    std::map<sass_site, std::vector<std::pair<std::uint32_t, double>>> anchors;  // site -> (block, weight)
    for (std::uint32_t b = 0; b < nb; ++b)
        for (const auto& a : g.blocks[b]->anchors)
            if (!a.predicated) anchors[a.site].push_back({b, double(a.count)});
    sass_estimate out;
    std::vector<std::pair<std::vector<std::pair<std::uint32_t, double>>, double>> equations;  // (terms, per-warp value)
    for (const auto& [site, n] : counts.sites) {
        auto it = anchors.find(site);
        if (it == anchors.end()) {
            // A call whose SASS line is off by one or two (a call written over several lines).
            for (int d : {1, -1, 2, -2}) {
                sass_site near = site;
                near.line = std::uint32_t(std::int64_t(site.line) + d);
                if ((it = anchors.find(near)) != anchors.end()) break;
            }
        }
        if (it == anchors.end()) {
            ++out.sites_unmatched;
            continue;
        }
        equations.push_back({it->second, double(n) / w});
        it->second.clear();  // each anchor answers one site
    }
    for (const auto& [site, terms] : anchors)
        if (!terms.empty()) equations.push_back({terms, 0.0});  // a site the simulator never counted

    // Rows: entry, conservation into and out of each block, calls, anchors, and a light pull towards fewer instructions.
    const std::size_t rows = 1 + 2 * nb + equations.size() + nb;
    std::vector<Eigen::Triplet<double>> A;
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(Eigen::Index(rows));
    const double hard = 100.0;
    Eigen::Index r = 0;
    A.emplace_back(r, 0, hard);
    rhs(r++) = hard;  // the kernel's entry runs once per warp (per-warp units)
    std::vector<std::vector<std::size_t>> in(nb), outgoing(nb);
    for (std::size_t e = 0; e < ne; ++e) {
        outgoing[g.edges[e].first].push_back(nb + e);
        in[g.edges[e].second].push_back(nb + e);
    }
    for (std::size_t x = 0; x < nx; ++x) outgoing[g.exit_edges[x]].push_back(nb + ne + x);
    std::vector<std::vector<std::uint32_t>> callers(nb);
    for (const auto& [caller, entry] : g.calls) callers[entry].push_back(caller);
    for (std::uint32_t b = 0; b < nb; ++b) {
        // In: the edges into it, the calls into it (a subroutine's entry), the launch (the kernel's entry).
        A.emplace_back(r, b, hard);
        for (auto v : in[b]) A.emplace_back(r, Eigen::Index(v), -hard);
        for (auto c : callers[b]) A.emplace_back(r, c, -hard);
        if (b == 0) rhs(r) = hard;
        ++r;
        // Out: every block that does not end its function leaves by its edges.
        if (!(g.blocks[b]->exits && g.blocks[b]->successors.empty())) {
            A.emplace_back(r, b, hard);
            for (auto v : outgoing[b]) A.emplace_back(r, Eigen::Index(v), -hard);
        }
        ++r;
    }
    const double anchor_weight = 10.0;
    for (const auto& [terms, value] : equations) {
        const double scale = anchor_weight / std::max(1.0, value);
        for (const auto& [b, c] : terms) A.emplace_back(r, b, scale * c);
        rhs(r) = scale * value;
        ++r;
    }
    const double pull = 1e-4;
    for (std::uint32_t b = 0; b < nb; ++b) A.emplace_back(r++, b, pull * g.blocks[b]->instructions / 16.0);
    Eigen::SparseMatrix<double> M{Eigen::Index(rows), Eigen::Index(nv)};
    M.setFromTriplets(A.begin(), A.end());  // duplicates (a block calling itself) add up
    struct {
        Eigen::VectorXd x;
    } sol{sparse_nnls(M, rhs)};

    out.block_runs.assign(nb, 0);
    double residual = 0, scale = 0;
    for (const auto& [terms, value] : equations) {
        double got = 0;
        for (const auto& [b, c] : terms) got += c * sol.x(b);
        residual += std::abs(got - value);
        scale += value;
    }
    out.anchor_residual = scale > 0 ? residual / scale : 0;
    for (std::uint32_t b = 0; b < nb; ++b) {
        const double runs = std::max(0.0, sol.x(b)) * w;
        if (b < kit->second.blocks.size()) out.block_runs[b] = runs;
        for (std::size_t p = 0; p < sass_pipe_count; ++p) out.pipes[p] += runs * g.blocks[b]->pipes[p];
        out.instructions += runs * g.blocks[b]->instructions;
    }
    out.block_runs.resize(kit->second.blocks.size());
    return out;
}

}  // namespace agpu::model
