// A kernel's machine code as the instruction counts need it (docs/design.md,
// "Instructions"): the SASS of each kernel, read from nvdisasm's listing with
// line information, as a control-flow graph of basic blocks, each with its
// instructions by pipe and its anchors, the memory, barrier and warp
// collective instructions that a kernel-layer call at a known source line
// emitted. The simulator counts, per launch, how many warp-instructions each
// such call made; block_counts then finds how many times each block ran
// (flow conservation through the graph, the anchors' counts, the fewest
// instructions where the two leave a choice), and the instructions by pipe
// follow. Nothing here is fitted: the graph and the pipes come from the
// compiled code and the hardware's documented pipes, the counts from the
// simulator.
#pragma once

#include <array>
#include <cstdint>
#include <istream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace agpu::model {

// The SM's issue pipes as CUPTI names them on sm_90 (smsp__inst_executed_pipe_<name>).
enum class sass_pipe : std::uint8_t { fma, alu, fp64, xu, lsu, adu, cbu, uniform, tensor, count_ };
inline constexpr std::size_t sass_pipe_count = static_cast<std::size_t>(sass_pipe::count_);
std::string_view to_string(sass_pipe p);

// The pipe that issues an opcode (its mnemonic before the first '.', "IMAD" of
// "IMAD.WIDE.U32"), after NVIDIA's pipe descriptions (Nsight Compute, Kernel
// Profiling Guide, "Pipelines"): FP32 arithmetic and integer multiply-add on
// fma (half precision too: GH100 counts it in the fma pipe); integer, logic,
// comparison, selection and data movement on alu; FP64 on
// fp64; transcendentals and int/float conversions on xu; memory, shuffles and
// special-register reads on lsu; branches, constant loads and block barriers on
// adu; convergence barriers, calls, returns and exits on cbu; the uniform
// datapath's U-prefixed instructions on uniform.
sass_pipe pipe_of(std::string_view opcode);

// The kernel-layer operations whose warp-instructions the simulator counts, as
// the SASS emits them.
enum class sass_anchor_kind : std::uint8_t {
    global_load,
    global_store,
    global_atomic,
    shared_load,
    shared_store,
    shared_atomic,
    barrier,
    collective,
    count_
};
inline constexpr std::size_t sass_anchor_kind_count = static_cast<std::size_t>(sass_anchor_kind::count_);
std::string_view to_string(sass_anchor_kind k);
// The anchor kind of an instruction (opcode with its modifiers), if it is one.
std::optional<sass_anchor_kind> anchor_kind_of(std::string_view opcode_with_modifiers);

// A source line of the kernel-layer call that emitted anchors: the file as the
// repository names it ("kernels/stats/fused.cuh") and its line.
struct sass_site {
    std::string file;
    std::uint32_t line = 0;
    sass_anchor_kind kind = sass_anchor_kind::global_load;
    auto operator<=>(const sass_site&) const = default;
};

struct sass_anchor {
    sass_site site;
    std::uint32_t count = 0;  // instructions of this site and kind in the block
    bool predicated = false;  // some of them carry a guard predicate (they issue when every lane is off)
};

struct sass_block {
    std::array<std::uint32_t, sass_pipe_count> pipes{};  // instructions by pipe
    std::uint32_t instructions = 0;
    std::vector<std::uint32_t> successors;  // block indices in the same function
    std::vector<sass_anchor> anchors;
    std::string calls;   // a subroutine this block calls last ("" if none)
    bool exits = false;  // ends the warp (unconditional EXIT) or returns from a subroutine
};

struct sass_function {
    std::vector<sass_block> blocks;  // block 0 is the entry
};

// The SASS of one compilation: every kernel (by its mangled name) and every
// subroutine its kernels call.
struct sass_module {
    std::string arch;  // "sm_90"
    std::map<std::string, sass_function> kernels;
    std::map<std::string, sass_function> subroutines;
};

// The .text sections of a cubin (an ELF64 file for one sm_XX), by function:
// each 16-byte instruction word, in address order.
std::map<std::string, std::string> cubin_text_sections(const std::string& cubin, const std::string& where);
// The cubins (CUDA ELF files) in `bytes`: itself, if it is one; else those
// an object file (nvcc -c) or a fatbinary embeds, uncompressed.
std::vector<std::string> embedded_cubins(const std::string& bytes);
// The cubin with the ELF header an older nvdisasm reads: the sm_90 cubins that
// CUDA 12 and 13 write carry a new OS/ABI and flags encoding, which the
// disassemblers before CUDA 12 refuse; the instruction encoding is the same.
std::string cubin_for_older_disassembler(const std::string& cubin, const std::string& where);

// Reads nvdisasm's listing (`nvdisasm -c -g -gi`) of `cubin`: functions,
// labels, instructions with their predicates and line information. An
// instruction the disassembler does not print (one newer than it: VIADD,
// VIMNMX, VIADDMNMX on sm_90) is read from the cubin's word, and a branch to
// it from the branch's encoded offset. Source paths are made relative to
// `source_root` (paths outside it are kept as they are). Throws input_error
// naming `where` and its line on a listing it cannot read.
sass_module parse_nvdisasm(std::istream& listing, const std::string& cubin, const std::string& where,
                           const std::string& source_root);

nlohmann::json to_json(const sass_module& m);
sass_module sass_module_from_json(const nlohmann::json& j, const std::string& where);

// Per launch: how many warps ran the kernel, and how many warp-instructions
// each kernel-layer call made (by file, line and kind).
struct sass_launch_counts {
    std::uint64_t warps = 0;
    std::map<sass_site, std::uint64_t> sites;
};

struct sass_estimate {
    std::array<double, sass_pipe_count> pipes{};
    double instructions = 0;
    std::vector<double> block_runs;   // per block of the kernel
    double anchor_residual = 0;       // relative: how far the anchors' equations stay unmet (0: exactly)
    std::size_t sites_unmatched = 0;  // counted sites with no anchor in the SASS
};

// How many times each block of `kernel` ran for `counts`, and the
// instructions by pipe that follow: non-negative block and edge runs that
// conserve flow (the entry runs once per warp; each block runs as often as it
// is entered and left; a call runs its subroutine), meet each site's anchors
// (a site's warp-instructions, times the SASS instructions per call, is the
// sum over blocks of its anchors times their runs), and, where those leave a
// choice (the compiler unrolled a loop, or duplicated a path), run the fewest
// instructions. Predicated anchors are not equations (they issue when every
// lane is off, which the simulator does not count).
sass_estimate estimate_instructions(const sass_module& m, const std::string& kernel, const sass_launch_counts& counts);

}  // namespace agpu::model
