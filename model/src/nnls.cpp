#include "agpu/model/nnls.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

// Least squares on the columns in `passive`; the other entries are 0.
Eigen::VectorXd solve_passive(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, const std::vector<bool>& passive) {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < A.cols(); ++j)
        if (passive[j]) cols.push_back(j);
    Eigen::MatrixXd Ap(A.rows(), Eigen::Index(cols.size()));
    for (std::size_t i = 0; i < cols.size(); ++i) Ap.col(Eigen::Index(i)) = A.col(cols[i]);
    const Eigen::VectorXd z = Ap.completeOrthogonalDecomposition().solve(b);
    Eigen::VectorXd s = Eigen::VectorXd::Zero(A.cols());
    for (std::size_t i = 0; i < cols.size(); ++i) s[cols[i]] = z[Eigen::Index(i)];
    return s;
}

}  // namespace

nnls_result nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int max_iterations) {
    AGPU_CHECK(A.rows() == b.size(),
               "nnls: A has " + std::to_string(A.rows()) + " rows, b " + std::to_string(b.size()));
    AGPU_CHECK(A.allFinite() && b.allFinite(), "nnls: A and b must be finite");
    const Eigen::Index n = A.cols();
    if (max_iterations <= 0) max_iterations = int(3 * n + 10);
    const double tol = 10 * std::numeric_limits<double>::epsilon() * A.cwiseAbs().colwise().sum().maxCoeff() *
                       double(std::max(A.rows(), n));
    nnls_result r;
    r.x = Eigen::VectorXd::Zero(n);
    std::vector<bool> passive(std::size_t(n), false);
    Eigen::VectorXd w = A.transpose() * (b - A * r.x);
    while (r.iterations < max_iterations) {
        // The most promising variable still held at zero.
        Eigen::Index best = -1;
        for (Eigen::Index j = 0; j < n; ++j)
            if (!passive[j] && w[j] > tol && (best < 0 || w[j] > w[best])) best = j;
        if (best < 0) {
            r.converged = true;
            break;
        }
        passive[best] = true;
        // Inner loop: step towards the unconstrained solution on the passive
        // set until it is feasible, dropping variables that reach zero.
        while (true) {
            ++r.iterations;
            const Eigen::VectorXd s = solve_passive(A, b, passive);
            bool feasible = true;
            for (Eigen::Index j = 0; j < n; ++j) feasible &= !passive[j] || s[j] > tol;
            if (feasible) {
                r.x = s;
                break;
            }
            double alpha = 1;
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[j] && s[j] <= tol) alpha = std::min(alpha, r.x[j] / (r.x[j] - s[j]));
            r.x += alpha * (s - r.x);
            for (Eigen::Index j = 0; j < n; ++j)
                if (passive[j] && r.x[j] <= tol) {
                    passive[j] = false;
                    r.x[j] = 0;
                }
            if (r.iterations >= max_iterations) break;
        }
        w = A.transpose() * (b - A * r.x);
    }
    r.residual_norm = (A * r.x - b).norm();
    return r;
}

}  // namespace agpu::model
