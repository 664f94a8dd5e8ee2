#include "agpu/sweep/cluster.hpp"

#include <cstdlib>
#include <string>

namespace agpu::sweep {
namespace {

class alone final : public cluster {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    std::string description() const override { return "this process"; }
    std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& values) override { return values; }
    std::vector<std::string> gather(const std::string& text) override { return {text}; }
};

int env_int(const char* name) {
    const char* v = std::getenv(name);
    if (!v || !*v) return 0;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    return end && *end == '\0' && x > 0 && x < (1L << 30) ? int(x) : 0;
}

}  // namespace

std::unique_ptr<cluster> single_process() { return std::make_unique<alone>(); }

launch_environment read_launch_environment() {
    launch_environment e;
    e.mpi_launcher = std::getenv("OMPI_COMM_WORLD_SIZE") || std::getenv("PMIX_RANK") || std::getenv("PMI_RANK");
    // A task of an srun step (a batch script itself has no step task count).
    if (std::getenv("SLURM_STEP_ID") && std::getenv("SLURM_PROCID")) {
        e.srun_tasks = env_int("SLURM_STEP_NUM_TASKS");
        if (!e.srun_tasks) e.srun_tasks = env_int("SLURM_NTASKS");
    }
    return e;
}

}  // namespace agpu::sweep
