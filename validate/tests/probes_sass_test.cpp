// The issue probes' loop bodies in model/probe_shape.hpp (issue_probes) against the
// SASS this build compiled for them: for each probe/issue kernel, the
// instructions by pipe of its largest loop equal the table's. The derivation
// counts instructions from the table where a dataset has no per-pipe
// counters, so the table must be the code that ran. Needs the CUDA build's
// object of kernels/probes/probes.gpu.cu and an nvdisasm (skipped, saying
// why, without them).
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <fstream>
#include <memory>
#include <sstream>

#include <unistd.h>

#include "agpu/model/sass.hpp"
#include "agpu/validate/calibrate.hpp"
#include "agpu/validate/dataset.hpp"

namespace fs = std::filesystem;
namespace model = agpu::model;
namespace shape = agpu::model::probe_shape;

namespace {

std::string read_file(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), {}};
}

// The object nvcc compiled probes.gpu.cu into, from the list the build wrote.
fs::path probes_object() {
    std::stringstream list(read_file(AGPU_KERNEL_OBJECTS));
    for (std::string p; std::getline(list, p, ';');)
        if (p.size() >= 16 && p.ends_with("probes.gpu.cu.o")) return p;
    return {};
}

std::string disassemble(const fs::path& cubin) {
    const std::string cmd = std::string("'") + AGPU_NVDISASM + "' -c -g -gi '" + cubin.string() + "' 2>&1";
    std::unique_ptr<FILE, int (*)(FILE*)> p(popen(cmd.c_str(), "r"), pclose);
    std::string out;
    std::array<char, 65536> buf{};
    for (std::size_t got = 0; p && (got = std::fread(buf.data(), 1, buf.size(), p.get())) > 0;)
        out.append(buf.data(), got);
    return out;
}

}  // namespace

TEST(ProbesSass, IssueLoopsAreTheTablesInstructions) {
    if (std::string(AGPU_NVDISASM).ends_with("NOTFOUND"))
        GTEST_SKIP() << "no nvdisasm (scripts/setup.sh --tests installs one)";
    const fs::path object = probes_object();
    ASSERT_FALSE(object.empty()) << "probes.gpu.cu.o is not among the kernels' objects (" << AGPU_KERNEL_OBJECTS << ")";
    ASSERT_TRUE(fs::exists(object)) << object;
    const auto cubins = model::embedded_cubins(read_file(object));
    ASSERT_EQ(cubins.size(), 1u) << "one sm_90 cubin in " << object;
    const fs::path tmp = fs::temp_directory_path() / ("agpu-probes-sass-" + std::to_string(::getpid()) + ".cubin");
    agpu::validate::write_file_atomically(tmp, model::cubin_for_older_disassembler(cubins[0], object.string()));
    std::istringstream listing(disassemble(tmp));
    fs::remove(tmp);
    const auto m = model::parse_nvdisasm(listing, cubins[0], object.string(), "");

    for (const auto& probe : shape::issue_probes) {
        SCOPED_TRACE(std::string(probe.op));
        const std::string tag =
            "issueINS2_" + std::to_string(3 + probe.op.size()) + "op_" + std::string(probe.op) + "E";
        const model::sass_function* f = nullptr;
        for (const auto& [name, fn] : m.kernels)
            if (name.find(tag) != std::string::npos) f = &fn;
        ASSERT_NE(f, nullptr) << "no kernel " << tag;
        // The largest block that loops back to itself.
        const model::sass_block* loop = nullptr;
        for (std::size_t b = 0; b < f->blocks.size(); ++b) {
            const auto& blk = f->blocks[b];
            const bool self = std::find(blk.successors.begin(), blk.successors.end(), b) != blk.successors.end();
            if (self && (!loop || blk.instructions > loop->instructions)) loop = &blk;
        }
        ASSERT_NE(loop, nullptr) << "no loop in " << tag;
        std::array<std::uint32_t, model::sass_pipe_count> want{};
        std::uint32_t total = 0;
        for (const auto& c : probe.loop) {
            want[static_cast<std::size_t>(model::pipe_of(c.opcode))] += c.count;
            total += c.count;
        }
        EXPECT_EQ(loop->instructions, total);
        for (std::size_t p = 0; p < model::sass_pipe_count; ++p)
            EXPECT_EQ(loop->pipes[p], want[p]) << "pipe " << model::to_string(model::sass_pipe(p));
    }
}
