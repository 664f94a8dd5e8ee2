// The processes one sweep runs in: this process alone, or the ranks of an MPI
// job (mpirun, or srun --mpi=pmix under Slurm). The MPI backend is compiled
// only where CMake finds MPI (cluster_mpi.cpp, else cluster_none.cpp: the
// only place that chooses is sweep/CMakeLists.txt); a build without it says
// so at run time when an MPI launcher started it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace agpu::sweep {

class cluster {
public:
    virtual ~cluster() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    // What runs the ranks, for messages and the summary ("this process", "MPI: Open MPI v4.1.4").
    virtual std::string description() const = 0;
    // Rank 0's `values` on every rank.
    virtual std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& values) = 0;
    // Every rank's `text`, in rank order, on rank 0 (the other ranks get an
    // empty list). Waits for the slowest rank without spinning on the CPU.
    virtual std::vector<std::string> gather(const std::string& text) = 0;
};

// Whether this build has the MPI backend.
bool built_with_mpi();

// The ranks this process belongs to: MPI's world when an MPI launcher
// started it (OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK in the
// environment), else this process alone. Throws unavailable_error when an MPI
// launcher started it and this build has no MPI, and when srun started
// several tasks without a process manager MPI can use (no PMIx or PMI: srun
// --mpi=pmix, or job arrays).
std::unique_ptr<cluster> join_cluster();

// This process alone (size 1).
std::unique_ptr<cluster> single_process();

// How the environment launched this process (for join_cluster and its tests).
struct launch_environment {
    bool mpi_launcher = false;  // OMPI_COMM_WORLD_SIZE, PMIX_RANK or PMI_RANK set
    int srun_tasks = 0;         // SLURM_STEP_NUM_TASKS (or SLURM_NTASKS) of a task srun started; 0 otherwise
};
launch_environment read_launch_environment();

}  // namespace agpu::sweep
