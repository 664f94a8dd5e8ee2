// Non-negative least squares: min ||A x - b||_2 subject to x >= 0, by the
// active-set method of Lawson and Hanson ("Solving Least Squares Problems",
// 1974, chapter 23), on Eigen matrices. The time model's constants are
// efficiency factors and must not be negative (a negative cost per byte is
// no explanation of anything), so the fit uses this instead of plain least
// squares.
#pragma once

#include <Eigen/Dense>

namespace agpu::model {

struct nnls_result {
    Eigen::VectorXd x;
    double residual_norm = 0;  // ||A x - b||_2
    int iterations = 0;
    bool converged = false;  // false only if the iteration limit was hit (x is then the last feasible point)
};

// A is m x n, b has m rows. Any m, n (m < n allowed). Columns of zeros get 0.
// Throws internal_error when b's size does not match A or an entry is not finite.
nnls_result nnls(const Eigen::MatrixXd& A, const Eigen::VectorXd& b, int max_iterations = 0);

}  // namespace agpu::model
