// The cluster backend of a build without MPI (sweep/CMakeLists.txt chooses):
// this process alone, and a clear message when an MPI launcher started it.
#include "agpu/errors.hpp"
#include "agpu/sweep/cluster.hpp"

namespace agpu::sweep {

bool built_with_mpi() { return false; }

std::unique_ptr<cluster> join_cluster() {
    const auto env = read_launch_environment();
    if (env.mpi_launcher || env.srun_tasks > 1)
        throw unavailable_error(
            "agpu sweep was started by an MPI launcher (mpirun or srun), but this agpu is built without MPI "
            "(CMake found none): install libopenmpi-dev and rebuild, or run one process with --jobs N, or shards "
            "(--shard I/N, Slurm job arrays) sharing one cache");
    return single_process();
}

}  // namespace agpu::sweep
