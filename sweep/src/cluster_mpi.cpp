// The MPI cluster backend (sweep/CMakeLists.txt compiles it where CMake finds
// MPI). Only the main thread calls MPI (MPI_THREAD_FUNNELED): the sweep's job
// threads compute, the main thread gathers.
#include <mpi.h>

#include <chrono>
#include <thread>

#include "agpu/errors.hpp"
#include "agpu/sweep/cluster.hpp"

namespace agpu::sweep {
namespace {

void check(int rc, const char* call) {
    if (rc == MPI_SUCCESS) return;
    char text[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, text, &len);
    throw unavailable_error(std::string("MPI: ") + call + " failed: " + std::string(text, std::size_t(len)));
}

// Waits for every rank to reach this point, sleeping between tests: ranks
// that finish early do not take the cores of those still computing.
void quiet_barrier() {
    MPI_Request request;
    check(MPI_Ibarrier(MPI_COMM_WORLD, &request), "MPI_Ibarrier");
    for (int done = 0;;) {
        check(MPI_Test(&request, &done, MPI_STATUS_IGNORE), "MPI_Test");
        if (done) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

class mpi_world final : public cluster {
public:
    mpi_world() {
        int provided = 0;
        check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread");
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        check(MPI_Comm_rank(MPI_COMM_WORLD, &m_rank), "MPI_Comm_rank");
        check(MPI_Comm_size(MPI_COMM_WORLD, &m_size), "MPI_Comm_size");
        char version[MPI_MAX_LIBRARY_VERSION_STRING];
        int len = 0;
        MPI_Get_library_version(version, &len);
        m_library = std::string(version, std::size_t(len));
        if (const auto cut = m_library.find_first_of(",\n"); cut != std::string::npos) m_library.resize(cut);
    }
    ~mpi_world() override { MPI_Finalize(); }
    mpi_world(const mpi_world&) = delete;
    mpi_world& operator=(const mpi_world&) = delete;

    int rank() const override { return m_rank; }
    int size() const override { return m_size; }
    std::string description() const override { return "MPI (" + m_library + "), " + std::to_string(m_size) + " ranks"; }

    std::vector<std::uint64_t> broadcast(const std::vector<std::uint64_t>& values) override {
        unsigned long long count = values.size();
        check(MPI_Bcast(&count, 1, MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
        std::vector<unsigned long long> buf(values.begin(), values.end());
        buf.resize(count);
        if (count > 0) check(MPI_Bcast(buf.data(), int(count), MPI_UNSIGNED_LONG_LONG, 0, MPI_COMM_WORLD), "MPI_Bcast");
        return {buf.begin(), buf.end()};
    }

    std::vector<std::string> gather(const std::string& text) override {
        quiet_barrier();
        if (text.size() > std::size_t(1) << 30)
            throw unavailable_error("MPI: a rank's results exceed 1 GiB; use shards");
        int mine = int(text.size());
        std::vector<int> sizes(m_rank == 0 ? std::size_t(m_size) : 0);
        check(MPI_Gather(&mine, 1, MPI_INT, sizes.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather");
        std::vector<int> offsets(sizes.size());
        long long total = 0;
        for (std::size_t i = 0; i < sizes.size(); ++i) {
            offsets[i] = int(total);
            total += sizes[i];
        }
        if (total > (1LL << 31) - 1) throw unavailable_error("MPI: the gathered results exceed 2 GiB; use shards");
        std::string all(std::size_t(total), '\0');
        check(MPI_Gatherv(text.data(), mine, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, 0,
                          MPI_COMM_WORLD),
              "MPI_Gatherv");
        std::vector<std::string> out;
        for (std::size_t i = 0; i < sizes.size(); ++i)
            out.push_back(all.substr(std::size_t(offsets[i]), std::size_t(sizes[i])));
        return out;
    }

private:
    int m_rank = 0, m_size = 1;
    std::string m_library;
};

}  // namespace

bool built_with_mpi() { return true; }

std::unique_ptr<cluster> join_cluster() {
    const auto env = read_launch_environment();
    if (!env.mpi_launcher && env.srun_tasks > 1)
        throw unavailable_error("srun started " + std::to_string(env.srun_tasks) +
                                " tasks without a process manager MPI can use (no PMIx or PMI in the environment): "
                                "run srun --mpi=pmix, or use job arrays (--shard I/N) sharing one cache");
    if (!env.mpi_launcher) return single_process();
    return std::make_unique<mpi_world>();
}

}  // namespace agpu::sweep
