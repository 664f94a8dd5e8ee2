#include "agpu/model/nnls.hpp"

#include <random>

#include <gtest/gtest.h>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

TEST(Nnls, PositiveLeastSquaresSolutionIsKept) {
    Eigen::MatrixXd A(3, 2);
    A << 1, 2, 3, 4, 5, 6;
    Eigen::VectorXd b(3);
    b << 5, 11, 17;  // x = (1, 2) exactly
    const auto r = nnls(A, b);
    EXPECT_TRUE(r.converged);
    EXPECT_NEAR(r.x[0], 1, 1e-12);
    EXPECT_NEAR(r.x[1], 2, 1e-12);
    EXPECT_NEAR(r.residual_norm, 0, 1e-12);
}

TEST(Nnls, NegativeCoefficientIsClampedAndTheRestRefitted) {
    // Unconstrained: x = (1.5, -1); with x >= 0 the second is 0 and the first
    // is the mean of its two rows.
    Eigen::MatrixXd A(3, 2);
    A << 1, 0, 1, 0, 0, 1;
    Eigen::VectorXd b(3);
    b << 2, 1, -1;
    const auto r = nnls(A, b);
    EXPECT_NEAR(r.x[0], 1.5, 1e-12);
    EXPECT_EQ(r.x[1], 0);
}

TEST(Nnls, AllNegativeGivesZero) {
    Eigen::MatrixXd A(3, 2);
    A << 1, 2, 3, 4, 5, 6;
    Eigen::VectorXd b(3);
    b << -1, -2, -3;
    const auto r = nnls(A, b);
    EXPECT_EQ(r.x[0], 0);
    EXPECT_EQ(r.x[1], 0);
}

TEST(Nnls, KnownSolutionWithAnActiveConstraint) {
    // Solution from scipy.optimize.nnls on the same data: (0, 0.5).
    Eigen::MatrixXd A(3, 2);
    A << 1, 2, 3, 4, 5, 6;
    Eigen::VectorXd b(3);
    b << 1, 2, 3;
    const auto r = nnls(A, b);
    EXPECT_NEAR(r.x[0], 0, 1e-12);
    EXPECT_NEAR(r.x[1], 0.5, 1e-12);
}

TEST(Nnls, ZeroColumnGetsZero) {
    Eigen::MatrixXd A(3, 2);
    A << 1, 0, 2, 0, 3, 0;
    Eigen::VectorXd b(3);
    b << 2, 4, 6;
    const auto r = nnls(A, b);
    EXPECT_NEAR(r.x[0], 2, 1e-12);
    EXPECT_EQ(r.x[1], 0);
}

// Random problems: the Karush-Kuhn-Tucker conditions of the solution.
TEST(Nnls, RandomProblemsMeetKktConditions) {
    std::mt19937 gen(7);
    std::normal_distribution<double> d;
    for (int trial = 0; trial < 50; ++trial) {
        const int m = 4 + trial % 20, n = 1 + trial % 7;
        Eigen::MatrixXd A(m, n);
        Eigen::VectorXd b(m);
        for (int i = 0; i < m; ++i) {
            b[i] = d(gen);
            for (int j = 0; j < n; ++j) A(i, j) = d(gen);
        }
        const auto r = nnls(A, b);
        ASSERT_TRUE(r.converged);
        const Eigen::VectorXd w = A.transpose() * (b - A * r.x);
        for (int j = 0; j < n; ++j) {
            EXPECT_GE(r.x[j], 0);
            if (r.x[j] > 0) EXPECT_NEAR(w[j], 0, 1e-9) << "trial " << trial;
            else EXPECT_LE(w[j], 1e-9) << "trial " << trial;
        }
    }
}

TEST(Nnls, MismatchedSizesAreAnInternalError) {
    EXPECT_THROW(nnls(Eigen::MatrixXd::Ones(3, 2), Eigen::VectorXd::Ones(2)), internal_error);
}

}  // namespace
}  // namespace agpu::model
