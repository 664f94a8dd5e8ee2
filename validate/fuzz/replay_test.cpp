// Replays the committed fuzz corpus (validate/fuzz/corpus/<target>/) through
// the fuzz targets' own entry functions, built with the normal compiler, so
// every input that once reached new code keeps being checked in CI: each must
// be accepted or rejected with an input_error, never anything else.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <ostream>

#include "fuzz_entries.hpp"

namespace fs = std::filesystem;

namespace agpu::fuzz {
void PrintTo(const target& t, std::ostream* os) { *os << t.name; }
}  // namespace agpu::fuzz

class FuzzCorpus : public testing::TestWithParam<agpu::fuzz::target> {};

TEST_P(FuzzCorpus, EveryInputIsAcceptedOrRejectedAsInput) {
    const auto& t = GetParam();
    const fs::path dir = fs::path(AGPU_FUZZ_CORPUS_DIR) / t.name;
    ASSERT_TRUE(fs::is_directory(dir)) << dir << " is missing: every target keeps a corpus";
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(dir)) {
        if (!e.is_regular_file()) continue;
        std::ifstream in(e.path(), std::ios::binary);
        const std::string data(std::istreambuf_iterator<char>(in), {});
        ++files;
        try {
            t.entry(data);
        } catch (const std::exception& x) {
            ADD_FAILURE() << e.path() << ": " << x.what();
        }
    }
    EXPECT_GT(files, 0u) << dir << " is empty";
}

INSTANTIATE_TEST_SUITE_P(Targets, FuzzCorpus, testing::ValuesIn(agpu::fuzz::targets()),
                         [](const testing::TestParamInfo<agpu::fuzz::target>& i) { return std::string(i.param.name); });
