// SASS profiles: the listing of the micro kernels (data/micro.sm_90.*: the
// cubin nvcc 13 compiled for sm_90, and Debian's nvdisasm 11.8 listing of it)
// read into blocks, pipes and anchors; block counts from the simulator's
// per-site counts, checked against the H100's own instruction count.
#include <gtest/gtest.h>

#include <fstream>
#include <numeric>
#include <sstream>

#include "agpu/errors.hpp"
#include "agpu/model/sass.hpp"

namespace model = agpu::model;

namespace {

std::string read(const std::string& name) {
    std::ifstream in(std::string(AGPU_MODEL_TEST_DATA) + "/" + name, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

const model::sass_module& micro() {
    static const model::sass_module m = [] {
        std::istringstream listing(read("micro.sm_90.nvdisasm.txt"));
        return model::parse_nvdisasm(listing, read("micro.sm_90.cubin"), "micro", "");
    }();
    return m;
}

const char* load_kernel = "_ZN4agpu7kernels5micro18global_stride_loadENS_2kl12cuda_backend5gspanIKjEENS4_IjEEjm";

}  // namespace

TEST(Sass, PipesFollowTheDocumentedUnits) {
    EXPECT_EQ(model::pipe_of("FFMA"), model::sass_pipe::fma);
    EXPECT_EQ(model::pipe_of("IMAD.WIDE.U32"), model::sass_pipe::fma);
    EXPECT_EQ(model::pipe_of("IADD3"), model::sass_pipe::alu);
    EXPECT_EQ(model::pipe_of("LOP3.LUT"), model::sass_pipe::alu);
    EXPECT_EQ(model::pipe_of("DFMA"), model::sass_pipe::fp64);
    EXPECT_EQ(model::pipe_of("MUFU.RCP64H"), model::sass_pipe::xu);
    EXPECT_EQ(model::pipe_of("LDG.E.128"), model::sass_pipe::lsu);
    EXPECT_EQ(model::pipe_of("SHFL.BFLY"), model::sass_pipe::lsu);
    EXPECT_EQ(model::pipe_of("BRA"), model::sass_pipe::adu);
    EXPECT_EQ(model::pipe_of("LDC.64"), model::sass_pipe::adu);
    EXPECT_EQ(model::pipe_of("BSYNC"), model::sass_pipe::cbu);
    EXPECT_EQ(model::pipe_of("EXIT"), model::sass_pipe::cbu);
    EXPECT_EQ(model::pipe_of("ULDC.64"), model::sass_pipe::uniform);
    EXPECT_EQ(model::pipe_of("S2UR"), model::sass_pipe::uniform);
    EXPECT_EQ(model::anchor_kind_of("LDG.E.128"), model::sass_anchor_kind::global_load);
    EXPECT_EQ(model::anchor_kind_of("BAR.SYNC.DEFER_BLOCKING"), model::sass_anchor_kind::barrier);
    EXPECT_EQ(model::anchor_kind_of("RED.E.ADD.STRONG.GPU"), model::sass_anchor_kind::global_atomic);
    EXPECT_FALSE(model::anchor_kind_of("LDL"));
    EXPECT_FALSE(model::anchor_kind_of("BAR.ARV"));
}

TEST(Sass, EveryWordOfTheCubinIsAnInstruction) {
    // The listing leaves out what the older disassembler cannot decode (VIADD and
    // its kin); the cubin's words fill them in, so every function's instructions add
    // up to its section's size.
    const auto sections = model::cubin_text_sections(read("micro.sm_90.cubin"), "micro");
    ASSERT_EQ(sections.size(), micro().kernels.size());
    std::uint64_t words = 0, instructions = 0;
    for (const auto& [name, text] : sections) words += text.size() / 16;
    for (const auto* functions : {&micro().kernels, &micro().subroutines})
        for (const auto& [name, f] : *functions)
            for (const auto& b : f.blocks) instructions += b.instructions;
    EXPECT_EQ(instructions, words);
    std::uint64_t viadd = 0;
    for (const auto& [name, f] : micro().kernels)
        for (const auto& b : f.blocks) viadd += b.pipes[std::size_t(model::sass_pipe::fma)];
    EXPECT_GT(viadd, 0u);
}

TEST(Sass, BlockCountsGiveTheH100sInstructionCount) {
    // micro/global-stride op=load stride=1 at n = 1000003 on the H100: 3907 blocks of 256
    // threads (31256 warps, 5 of them past n), the load and the store made by the 31251
    // warps with a lane below n. The H100 counted 781325 warp-instructions
    // (smsp__inst_executed.sum, validate/data/h100/counters/micro): 25 per warp below n,
    // 10 per warp past it (up to its EXIT).
    const auto& f = micro().kernels.at(load_kernel);
    model::sass_launch_counts c;
    c.warps = 31256;
    std::uint32_t line = 0;
    for (const auto& b : f.blocks)
        for (const auto& a : b.anchors)
            if (a.site.kind == model::sass_anchor_kind::global_load) line = a.site.line;
    ASSERT_GT(line, 0u);
    c.sites[{"kernels/micro/micro.cuh", line, model::sass_anchor_kind::global_load}] = 31251;
    c.sites[{"kernels/micro/micro.cuh", line, model::sass_anchor_kind::global_store}] = 31251;
    const auto e = model::estimate_instructions(micro(), load_kernel, c);
    EXPECT_NEAR(e.instructions, 781325, 0.5);
    EXPECT_LT(e.anchor_residual, 1e-6);
    EXPECT_EQ(e.sites_unmatched, 0u);
    EXPECT_NEAR(std::accumulate(e.pipes.begin(), e.pipes.end(), 0.0), e.instructions, 1e-6 * e.instructions);
    // Every warp runs the entry block.
    EXPECT_NEAR(e.block_runs[0], 31256, 0.5);
}

TEST(Sass, ProfilesRoundTripThroughJson) {
    const auto j = model::to_json(micro());
    const auto back = model::sass_module_from_json(j, "x");
    EXPECT_EQ(model::to_json(back), j);
    EXPECT_THROW(model::sass_module_from_json({{"schema", "agpu.sass/9"}}, "x"), agpu::input_error);
    auto bad = j;
    bad["kernels"][load_kernel][0]["next"] = {999};
    EXPECT_THROW(model::sass_module_from_json(bad, "x"), agpu::input_error);
}

TEST(Sass, CubinsAreFoundInsideOtherFilesAndReencodedForOlderTools) {
    const std::string cubin = read("micro.sm_90.cubin");
    const std::string wrapped = std::string(100, 'x') + cubin + std::string(7, 'y');
    const auto found = model::embedded_cubins(wrapped);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0], cubin);
    const std::string older = model::cubin_for_older_disassembler(cubin, "micro");
    EXPECT_EQ(std::uint8_t(older[7]), 0x33);
    EXPECT_EQ(older.substr(64), cubin.substr(64)) << "only the header changes";
    EXPECT_THROW(model::cubin_text_sections("not an elf", "x"), agpu::input_error);
}
