// The entry functions of the fuzz targets: each feeds one input to one of
// agpu's readers of user files and options. A reader may reject the input
// (agpu::input_error, what the command line turns into exit status 2); any
// other exception, a crash, a hang or a leak is a bug. The libFuzzer binaries
// (fuzz_main.cpp, built with AGPU_FUZZ=ON under clang) and the corpus replay
// test (replay_test.cpp, built with the normal compiler, run by CTest) call
// the same functions.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace agpu::fuzz {

struct target {
    const char* name;                 // also the corpus folder: validate/fuzz/corpus/<name>/
    void (*entry)(std::string_view);  // throws anything but input_error on a bug
    const char* what;
};

// device_file, fit_file, measurements_csv, provenance, options.
const std::vector<target>& targets();

}  // namespace agpu::fuzz
