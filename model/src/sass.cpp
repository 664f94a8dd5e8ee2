#include "agpu/model/sass.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <set>
#include <sstream>

#include "agpu/errors.hpp"

namespace agpu::model {
namespace {

constexpr std::array<std::string_view, sass_pipe_count> pipe_names = {"fma", "alu", "fp64",    "xu",    "lsu",
                                                                      "adu", "cbu", "uniform", "tensor"};
constexpr std::array<std::string_view, sass_anchor_kind_count> anchor_names = {
    "global_load",  "global_store",  "global_atomic", "shared_load",
    "shared_store", "shared_atomic", "barrier",       "collective"};

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }

std::string_view mnemonic(std::string_view op) { return op.substr(0, op.find('.')); }

}  // namespace

std::string_view to_string(sass_pipe p) { return pipe_names[static_cast<std::size_t>(p)]; }
std::string_view to_string(sass_anchor_kind k) { return anchor_names[static_cast<std::size_t>(k)]; }

sass_pipe pipe_of(std::string_view opcode) {
    const std::string_view m = mnemonic(opcode);
    // The uniform datapath: U-prefixed instructions, and the moves into its registers.
    if ((m.size() > 1 && m[0] == 'U' && m != "UNKNOWN") || m == "R2UR" || m == "S2UR" || m == "VOTEU")
        return sass_pipe::uniform;
    static const std::map<std::string_view, sass_pipe, std::less<>> table = {
        // FP32 arithmetic and integer multiply-add.
        {"FFMA", sass_pipe::fma},
        {"FADD", sass_pipe::fma},
        {"FMUL", sass_pipe::fma},
        {"FFMA32I", sass_pipe::fma},
        {"FADD32I", sass_pipe::fma},
        {"FMUL32I", sass_pipe::fma},
        {"IMAD", sass_pipe::fma},
        {"IMUL", sass_pipe::fma},
        {"IMAD32I", sass_pipe::fma},
        {"IMUL32I", sass_pipe::fma},
        {"IDP", sass_pipe::fma},
        {"IDP4A", sass_pipe::fma},
        {"FSWZADD", sass_pipe::fma},
        // sm_90 integer instructions newer than the pipe descriptions (VIADD, and the DPX VIADDMNMX
        // and VIMNMX): the instruction-mix probes of agpu calibrate check where they issue.
        {"VIADD", sass_pipe::fma},
        {"VIMNMX", sass_pipe::alu},
        {"VIADDMNMX", sass_pipe::alu},
        // Half precision (GH100 issues it on the fma pipe).
        {"HFMA2", sass_pipe::fma},
        {"HADD2", sass_pipe::fma},
        {"HMUL2", sass_pipe::fma},
        {"HSET2", sass_pipe::alu},
        {"HSETP2", sass_pipe::alu},
        {"HMNMX2", sass_pipe::alu},
        // FP64.
        {"DFMA", sass_pipe::fp64},
        {"DADD", sass_pipe::fp64},
        {"DMUL", sass_pipe::fp64},
        {"DSETP", sass_pipe::fp64},
        {"DMNMX", sass_pipe::fp64},
        {"DSET", sass_pipe::fp64},
        // Transcendentals and conversions.
        {"MUFU", sass_pipe::xu},
        {"I2F", sass_pipe::xu},
        {"F2I", sass_pipe::xu},
        {"F2F", sass_pipe::xu},
        {"FRND", sass_pipe::xu},
        {"I2I", sass_pipe::xu},
        {"F2FP", sass_pipe::alu},
        // Memory, shuffles, special registers.
        {"LDG", sass_pipe::lsu},
        {"STG", sass_pipe::lsu},
        {"LDS", sass_pipe::lsu},
        {"STS", sass_pipe::lsu},
        {"LD", sass_pipe::lsu},
        {"ST", sass_pipe::lsu},
        {"LDL", sass_pipe::lsu},
        {"STL", sass_pipe::lsu},
        {"ATOM", sass_pipe::lsu},
        {"ATOMG", sass_pipe::lsu},
        {"ATOMS", sass_pipe::lsu},
        {"RED", sass_pipe::lsu},
        {"REDG", sass_pipe::lsu},
        {"SHFL", sass_pipe::lsu},
        {"S2R", sass_pipe::lsu},
        {"CS2R", sass_pipe::alu},
        {"LDSM", sass_pipe::lsu},
        {"LDGSTS", sass_pipe::lsu},
        {"MATCH", sass_pipe::lsu},
        {"CCTL", sass_pipe::lsu},
        {"MEMBAR", sass_pipe::lsu},
        {"ERRBAR", sass_pipe::lsu},
        {"CGAERRBAR", sass_pipe::lsu},
        {"FENCE", sass_pipe::lsu},
        {"LDGDEPBAR", sass_pipe::lsu},
        {"ARRIVES", sass_pipe::lsu},
        {"SYNCS", sass_pipe::lsu},
        {"REDUX", sass_pipe::alu},
        // Branches, constant loads, block barriers.
        {"BRA", sass_pipe::adu},
        {"BRX", sass_pipe::adu},
        {"JMP", sass_pipe::adu},
        {"JMX", sass_pipe::adu},
        {"LDC", sass_pipe::adu},
        {"BAR", sass_pipe::adu},
        {"B2R", sass_pipe::adu},
        {"R2B", sass_pipe::adu},
        {"DEPBAR", sass_pipe::adu},
        // Convergence barriers, calls, returns, exits, warp synchronisation.
        {"BSSY", sass_pipe::cbu},
        {"BSYNC", sass_pipe::cbu},
        {"WARPSYNC", sass_pipe::cbu},
        {"BREAK", sass_pipe::cbu},
        {"BMOV", sass_pipe::cbu},
        {"BPT", sass_pipe::cbu},
        {"CALL", sass_pipe::cbu},
        {"RET", sass_pipe::cbu},
        {"EXIT", sass_pipe::cbu},
        {"KILL", sass_pipe::cbu},
        {"YIELD", sass_pipe::cbu},
        {"NANOSLEEP", sass_pipe::cbu},
        {"WARPGROUP", sass_pipe::cbu},
        {"ACQBULK", sass_pipe::cbu},
        {"PREEXIT", sass_pipe::cbu},
        {"ENDCOLLECTIVE", sass_pipe::cbu},
        {"ELECT", sass_pipe::cbu},
        // Tensor cores.
        {"HMMA", sass_pipe::tensor},
        {"IMMA", sass_pipe::tensor},
        {"DMMA", sass_pipe::tensor},
        {"HGMMA", sass_pipe::tensor},
        {"IGMMA", sass_pipe::tensor},
    };
    if (auto it = table.find(m); it != table.end()) return it->second;
    // Integer, logic, comparison, selection, bit manipulation and moves.
    return sass_pipe::alu;
}

std::optional<sass_anchor_kind> anchor_kind_of(std::string_view op) {
    const std::string_view m = mnemonic(op);
    if (m == "LDG") return sass_anchor_kind::global_load;
    if (m == "STG") return sass_anchor_kind::global_store;
    if (m == "ATOMG" || m == "REDG" || m == "RED") return sass_anchor_kind::global_atomic;
    if (m == "LDS") return sass_anchor_kind::shared_load;
    if (m == "STS") return sass_anchor_kind::shared_store;
    if (m == "ATOMS") return sass_anchor_kind::shared_atomic;
    if (m == "BAR" && op.find(".SYNC") != std::string_view::npos) return sass_anchor_kind::barrier;
    if (m == "SHFL" || m == "VOTE" || m == "MATCH" || m == "REDUX") return sass_anchor_kind::collective;
    return std::nullopt;
}

namespace {

struct frame {
    std::string file;
    std::uint32_t line = 0;
};

// "File "PATH", line N[ inlined at "PATH", line M]": the frame, and the one it is inlined at.
bool parse_location(std::string_view s, frame& inner, std::optional<frame>& outer) {
    auto one = [](std::string_view& t, frame& f) {
        const auto q1 = t.find('"');
        if (q1 == std::string_view::npos) return false;
        const auto q2 = t.find('"', q1 + 1);
        if (q2 == std::string_view::npos) return false;
        f.file = std::string(t.substr(q1 + 1, q2 - q1 - 1));
        const auto l = t.find("line ", q2);
        if (l == std::string_view::npos) return false;
        std::size_t i = l + 5;
        std::uint32_t v = 0;
        bool any = false;
        while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
            v = v * 10 + std::uint32_t(t[i++] - '0'), any = true;
        f.line = v;
        t = t.substr(i);
        return any;
    };
    if (!one(s, inner)) return false;
    outer.reset();
    if (const auto at = s.find("inlined at"); at != std::string_view::npos) {
        s = s.substr(at);
        frame f;
        if (!one(s, f)) return false;
        outer = f;
    }
    return true;
}

std::string relative(std::string path, const std::string& root) {
    if (!root.empty()) {
        std::string r = root;
        if (r.back() != '/') r += '/';
        if (starts_with(path, r)) return path.substr(r.size());
    }
    return path;
}

bool in_kernel_layer(const std::string& file) {
    return file.find("kernels/layer/") != std::string::npos || file.find("/agpu/kl/") != std::string::npos;
}

// The source line of the kernel-layer call that emitted an instruction whose
// location is `chain` (innermost first), if a kernel-layer call emitted it.
std::optional<frame> call_site(const std::vector<frame>& chain) {
    std::optional<std::size_t> outermost_kl;
    for (std::size_t i = 0; i < chain.size(); ++i)
        if (in_kernel_layer(chain[i].file)) outermost_kl = i;
    if (!outermost_kl || *outermost_kl + 1 >= chain.size()) return std::nullopt;
    return chain[*outermost_kl + 1];
}

struct raw_instruction {
    std::uint32_t address = 0;
    std::string opcode;  // with modifiers
    std::string operands;
    bool predicated = false;  // a guard predicate other than PT (it issues when every lane is off)
    bool never = false;       // guarded by !PT
    std::vector<frame> chain;
    std::uint64_t word = 0;  // the low 64 bits of its encoding
};

struct raw_function {
    std::string name;
    std::vector<raw_instruction> code;
};

std::string branch_target(const std::string& operands) {
    const auto a = operands.find("`(");
    if (a == std::string::npos) return "";
    const auto b = operands.find(')', a);
    return b == std::string::npos ? "" : operands.substr(a + 2, b - a - 2);
}

// A branch's target address from its encoding (sm_90: a signed count of
// 4-byte units after the next instruction, in bits 16-23 and 34-63).
std::uint32_t encoded_target(const raw_instruction& in) {
    std::int64_t off = std::int64_t(((in.word >> 16) & 0xff) | ((in.word >> 34) << 8));
    constexpr int bits = 8 + 30;
    if (off >> (bits - 1)) off -= std::int64_t(1) << bits;
    return std::uint32_t(std::int64_t(in.address) + 16 + 4 * off);
}

// The mnemonic of an instruction the older disassembler does not print, from
// its opcode bits; the operand forms of one instruction share the low 9 bits.
std::string newer_mnemonic(std::uint64_t word) {
    switch (word & 0x1ff) {
        case 0x036: return "VIADD";
        case 0x046: return "VIADDMNMX";
        case 0x048: return "VIMNMX";
        default: {
            std::ostringstream os;
            os << "UNKNOWN_" << std::hex << (word & 0xfff);
            return os.str();
        }
    }
}

bool is_control(std::string_view m) {
    return m == "BRA" || m == "BRX" || m == "JMP" || m == "JMX" || m == "EXIT" || m == "RET" || m == "CALL" ||
           m == "BPT";
}

sass_function build_blocks(const raw_function& f, const std::map<std::string, std::uint32_t>& labels,
                           const std::string& where) {
    const auto& code = f.code;
    std::map<std::uint32_t, std::size_t> at;  // address -> instruction index
    for (std::size_t i = 0; i < code.size(); ++i) at[code[i].address] = i;
    auto target_of = [&](const raw_instruction& in) -> std::optional<std::size_t> {
        std::uint32_t addr = 0;
        const auto label = branch_target(in.operands);
        if (const auto it = labels.find(label); it != labels.end()) addr = it->second;
        else addr = encoded_target(in);
        const auto it = at.find(addr);
        if (it == at.end()) return std::nullopt;
        return it->second;
    };
    // Leaders: the first instruction, every branch target, every instruction after a control transfer.
    std::vector<bool> leader(code.size() + 1, false);
    leader[0] = true;
    for (std::size_t i = 0; i < code.size(); ++i) {
        const auto m = mnemonic(code[i].opcode);
        if (is_control(m)) leader[i + 1] = true;
        if (m == "BRA" || m == "JMP") {
            const auto t = target_of(code[i]);
            if (!t)
                throw input_error(where, "function " + f.name + ": a branch at " + std::to_string(code[i].address) +
                                             " to an address outside it");
            leader[*t] = true;
        }
    }
    std::vector<std::uint32_t> block_of(code.size() + 1, 0);
    std::uint32_t nb = 0;
    for (std::size_t i = 0; i < code.size(); ++i) {
        if (leader[i] && i > 0) ++nb;
        block_of[i] = nb;
    }
    sass_function out;
    out.blocks.resize(code.empty() ? 0 : nb + 1);
    for (std::size_t i = 0; i < code.size(); ++i) {
        const auto& in = code[i];
        auto& b = out.blocks[block_of[i]];
        // Every instruction issues, a guarded one whose guard is false (even !PT) too.
        b.pipes[static_cast<std::size_t>(pipe_of(in.opcode))]++;
        b.instructions++;
        if (const auto kind = anchor_kind_of(in.opcode)) {
            if (const auto site = call_site(in.chain)) {
                sass_site s{site->file, site->line, *kind};
                auto it =
                    std::find_if(b.anchors.begin(), b.anchors.end(), [&](const sass_anchor& a) { return a.site == s; });
                if (it == b.anchors.end()) it = b.anchors.insert(b.anchors.end(), sass_anchor{s, 0, false});
                it->count++;
                it->predicated = it->predicated || in.predicated;
            }
        }
        if (i + 1 < code.size() && !leader[i + 1]) continue;
        const auto m = mnemonic(in.opcode);
        const bool has_next = i + 1 < code.size();
        const std::uint32_t next = block_of[i] + 1;
        auto add = [&](std::uint32_t s) {
            if (std::find(b.successors.begin(), b.successors.end(), s) == b.successors.end()) b.successors.push_back(s);
        };
        if (m == "BRA" || m == "JMP") {
            // Conditional: a guard, a divergence test (BRA.DIV), or a predicate operand (BRA.U !UP0, ...).
            std::string_view ops(in.operands);
            if (!ops.empty() && ops[0] == '!') ops.remove_prefix(1);
            if (!ops.empty() && ops[0] == 'U') ops.remove_prefix(1);
            const bool predicate_operand =
                ops.size() > 1 && ops[0] == 'P' && (std::isdigit(static_cast<unsigned char>(ops[1])) || ops[1] == 'T');
            const bool conditional = in.predicated || in.opcode.find(".DIV") != std::string::npos || predicate_operand;
            if (!in.never) add(block_of[*target_of(in)]);
            if ((conditional || in.never) && has_next) add(next);
        } else if (m == "BRX" || m == "JMX") {
            b.exits = true;  // an indirect branch: its targets are not in the listing
        } else if (m == "EXIT" || m == "RET" || m == "BPT") {
            b.exits = true;
            if ((in.predicated || in.never) && has_next) add(next);
        } else if (m == "CALL") {
            b.calls = branch_target(in.operands);
            if (has_next) add(next);
        } else if (has_next) {
            add(next);
        }
    }
    return out;
}

std::uint16_t u16(const std::string& b, std::size_t at) {
    return std::uint16_t(std::uint8_t(b[at]) | std::uint8_t(b[at + 1]) << 8);
}
std::uint32_t u32(const std::string& b, std::size_t at) { return u16(b, at) | std::uint32_t(u16(b, at + 2)) << 16; }
std::uint64_t u64(const std::string& b, std::size_t at) { return u32(b, at) | std::uint64_t(u32(b, at + 4)) << 32; }

}  // namespace

std::map<std::string, std::string> cubin_text_sections(const std::string& b, const std::string& where) {
    if (b.size() < 64 ||
        b.compare(0, 4,
                  "\x7f"
                  "ELF") != 0 ||
        b[4] != 2)
        throw input_error(where, "not a 64-bit ELF file (a cubin)");
    const std::uint64_t shoff = u64(b, 0x28);
    const std::uint16_t shentsize = u16(b, 0x3a), shnum = u16(b, 0x3c), shstrndx = u16(b, 0x3e);
    if (shoff + std::uint64_t(shentsize) * shnum > b.size() || shstrndx >= shnum || shentsize < 64)
        throw input_error(where, "its section headers lie outside the file");
    auto header = [&](std::size_t i) { return shoff + std::uint64_t(i) * shentsize; };
    const std::uint64_t strtab = u64(b, header(shstrndx) + 0x18);
    std::map<std::string, std::string> out;
    for (std::size_t i = 0; i < shnum; ++i) {
        const std::uint64_t h = header(i);
        const std::uint32_t name = u32(b, h);
        const std::uint32_t type = u32(b, h + 4);
        const std::uint64_t off = u64(b, h + 0x18), size = u64(b, h + 0x20);
        if (type == 8) continue;  // SHT_NOBITS: shared memory and the like, no bytes in the file
        if (strtab + name >= b.size() || off + size > b.size())
            throw input_error(where, "a section lies outside the file");
        const std::string n(b.c_str() + strtab + name);
        if (n.rfind(".text.", 0) == 0) out[n.substr(6)] = b.substr(off, size);
    }
    return out;
}

std::vector<std::string> embedded_cubins(const std::string& b) {
    constexpr std::uint16_t em_cuda = 190;
    std::vector<std::string> out;
    std::size_t at = 0;
    while ((at = b.find("\x7f"
                        "ELF",
                        at)) != std::string::npos) {
        if (at + 64 <= b.size() && b[at + 4] == 2 && u16(b, at + 0x12) == em_cuda) {
            // Its size: the furthest of its section headers, program headers, sections and segments.
            const std::uint64_t shoff = u64(b, at + 0x28), phoff = u64(b, at + 0x20);
            const std::uint16_t phentsize = u16(b, at + 0x36), phnum = u16(b, at + 0x38);
            const std::uint16_t shentsize = u16(b, at + 0x3a), shnum = u16(b, at + 0x3c);
            std::uint64_t end =
                std::max(shoff + std::uint64_t(shentsize) * shnum, phoff + std::uint64_t(phentsize) * phnum);
            bool inside = end <= b.size() - at;
            for (std::size_t i = 0; inside && i < shnum; ++i) {
                const std::uint64_t h = at + shoff + i * shentsize;
                if (u32(b, h + 4) != 8) end = std::max(end, u64(b, h + 0x18) + u64(b, h + 0x20));
            }
            for (std::size_t i = 0; inside && i < phnum; ++i) {
                const std::uint64_t h = at + phoff + i * phentsize;
                end = std::max(end, u64(b, h + 8) + u64(b, h + 0x20));
            }
            if (inside && end > 64 && end <= b.size() - at) {
                out.push_back(b.substr(at, end));
                at += end;
                continue;
            }
        }
        at += 4;
    }
    return out;
}

std::string cubin_for_older_disassembler(const std::string& cubin, const std::string& where) {
    if (cubin.size() < 64 || cubin.compare(0, 4,
                                           "\x7f"
                                           "ELF") != 0)
        throw input_error(where, "not an ELF file (a cubin)");
    std::string out = cubin;
    const std::uint32_t flags = u32(cubin, 0x30);
    // CUDA 12+: OS/ABI 0x41 and the SM in bits 8-15 of e_flags; before: OS/ABI 0x33 (ABI 7) and
    // the SM in bits 0-7 and 16-23 with 0x500 (64-bit addresses, unified textures).
    if (std::uint8_t(cubin[7]) == 0x41) {
        const std::uint32_t sm = (flags >> 8) & 0xff;
        const std::uint32_t old_flags = sm | 0x500 | (sm << 16);
        out[7] = char(0x33);
        out[8] = char(7);
        for (int i = 0; i < 4; ++i) out[0x30 + i] = char((old_flags >> (8 * i)) & 0xff);
    }
    return out;
}

sass_module parse_nvdisasm(std::istream& in, const std::string& cubin, const std::string& where,
                           const std::string& source_root) {
    const auto words = cubin_text_sections(cubin, where);
    sass_module m;
    m.arch = "sm_90";
    // Per section: its instructions by address, its labels, its functions' starts.
    struct section_listing {
        std::map<std::uint32_t, raw_instruction> code;
        std::map<std::string, std::uint32_t> labels;
        std::map<std::uint32_t, std::string> functions;
    };
    std::map<std::string, section_listing> sections;
    section_listing* cur = nullptr;
    std::vector<frame> chain;
    bool in_location = false;
    std::vector<std::string> pending_labels;
    std::string pending_function;
    std::string line;
    std::size_t lineno = 0;
    while (std::getline(in, line)) {
        ++lineno;
        std::string_view s(line);
        const auto first = s.find_first_not_of(" \t");
        if (first == std::string_view::npos) continue;
        s = s.substr(first);
        if (starts_with(s, "//---")) {
            in_location = false;
            chain.clear();
            const auto t = s.find(".text.");
            cur = nullptr;
            if (t == std::string_view::npos) continue;
            auto rest = s.substr(t + 6);
            const std::string name(rest.substr(0, rest.find(' ')));
            if (!words.count(name))
                throw input_error(where + ":" + std::to_string(lineno), "section " + name + " is not in the cubin");
            cur = &sections[name];
            pending_labels.clear();
            pending_function.clear();
            continue;
        }
        if (!cur) continue;
        if (starts_with(s, "//## File")) {
            frame inner;
            std::optional<frame> outer;
            if (!parse_location(s, inner, outer))
                throw input_error(where + ":" + std::to_string(lineno), "cannot read the line information");
            inner.file = relative(inner.file, source_root);
            if (!in_location) chain.clear();
            in_location = true;
            if (chain.empty()) chain.push_back(inner);
            if (outer) {
                outer->file = relative(outer->file, source_root);
                chain.push_back(*outer);
            }
            continue;
        }
        in_location = false;
        if (s.back() == ':' && s.find(' ') == std::string_view::npos && s.find('/') == std::string_view::npos) {
            const std::string label(s.substr(0, s.size() - 1));
            if (starts_with(label, ".L_")) pending_labels.push_back(label);
            else if (label[0] != '.')
                pending_function = label;  // a function: the kernel, or a subroutine in its section
            continue;
        }
        if (!starts_with(s, "/*")) continue;
        const auto close = s.find("*/");
        if (close == std::string_view::npos) continue;
        raw_instruction ri;
        {
            std::uint32_t a = 0;
            for (char c : s.substr(2, close - 2)) {
                if (!std::isxdigit(static_cast<unsigned char>(c)))
                    throw input_error(where + ":" + std::to_string(lineno), "an instruction without its address");
                a = a * 16 +
                    std::uint32_t(std::isdigit(static_cast<unsigned char>(c)) ? c - '0' : (std::tolower(c) - 'a' + 10));
            }
            ri.address = a;
        }
        std::string_view text = s.substr(close + 2);
        text = text.substr(std::min(text.find_first_not_of(" \t"), text.size()));
        if (const auto semi = text.find(';'); semi != std::string_view::npos) text = text.substr(0, semi);
        while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
        if (text.empty()) continue;
        if (text[0] == '@') {
            const auto sp = text.find(' ');
            const std::string_view p = text.substr(0, sp);
            ri.never = p == "@!PT" || p == "@!UPT";
            ri.predicated = !(p == "@PT" || p == "@UPT") && !ri.never;
            text = text.substr(sp + 1);
        }
        const auto sp = text.find(' ');
        ri.opcode = std::string(text.substr(0, sp));
        ri.operands = sp == std::string_view::npos ? "" : std::string(text.substr(sp + 1));
        ri.chain = chain;
        for (const auto& l : pending_labels) cur->labels[l] = ri.address;
        pending_labels.clear();
        if (!pending_function.empty()) cur->functions[ri.address] = pending_function;
        pending_function.clear();
        cur->code[ri.address] = std::move(ri);
    }
    for (auto& [name, sec] : sections) {
        const std::string& bytes = words.at(name);
        // The instructions the listing leaves out, from the cubin's words.
        const std::vector<frame> none;
        const std::vector<frame>* last_chain = &none;
        for (std::uint32_t a = 0; a + 16 <= bytes.size(); a += 16) {
            auto it = sec.code.find(a);
            if (it == sec.code.end()) {
                raw_instruction ri;
                ri.address = a;
                ri.word = u64(bytes, a);
                ri.opcode = newer_mnemonic(ri.word);
                ri.chain = *last_chain;
                it = sec.code.emplace(a, std::move(ri)).first;
            } else {
                it->second.word = u64(bytes, a);
            }
            last_chain = &it->second.chain;
        }
        if (sec.functions.empty() || sec.functions.begin()->first != 0) sec.functions[0] = name;
        // Split the section into its functions.
        for (auto f = sec.functions.begin(); f != sec.functions.end(); ++f) {
            const auto next = std::next(f);
            const std::uint32_t end = next == sec.functions.end() ? std::uint32_t(bytes.size()) : next->first;
            raw_function rf{f->second, {}};
            for (auto it = sec.code.lower_bound(f->first); it != sec.code.end() && it->first < end; ++it)
                rf.code.push_back(it->second);
            if (rf.code.empty()) continue;
            auto fn = build_blocks(rf, sec.labels, where);
            if (starts_with(f->second, "$")) m.subroutines[f->second] = std::move(fn);
            else m.kernels[f->second] = std::move(fn);
        }
    }
    if (m.kernels.empty()) throw input_error(where, "no kernel in the listing (is it nvdisasm -c -g -gi output?)");
    return m;
}

// ---------------------------------------------------------------- JSON

namespace {

nlohmann::json function_json(const sass_function& f) {
    nlohmann::json blocks = nlohmann::json::array();
    for (const auto& b : f.blocks) {
        nlohmann::json pipes = nlohmann::json::object();
        for (std::size_t p = 0; p < sass_pipe_count; ++p)
            if (b.pipes[p]) pipes[std::string(pipe_names[p])] = b.pipes[p];
        nlohmann::json j = {{"pipes", pipes}};
        if (!b.successors.empty()) j["next"] = b.successors;
        if (b.exits) j["exits"] = true;
        if (!b.calls.empty()) j["calls"] = b.calls;
        if (!b.anchors.empty()) {
            nlohmann::json a = nlohmann::json::array();
            for (const auto& x : b.anchors) {
                nlohmann::json one = {x.site.file, x.site.line, std::string(to_string(x.site.kind)), x.count};
                if (x.predicated) one.push_back("predicated");
                a.push_back(one);
            }
            j["anchors"] = a;
        }
        blocks.push_back(j);
    }
    return blocks;
}

sass_function function_from_json(const nlohmann::json& j, const std::string& where) {
    if (!j.is_array()) throw input_error(where, "must be an array of blocks");
    sass_function f;
    for (std::size_t i = 0; i < j.size(); ++i) {
        const auto& b = j[i];
        const std::string w = where + "[" + std::to_string(i) + "]";
        if (!b.is_object() || !b.contains("pipes") || !b["pipes"].is_object())
            throw input_error(w, "a block is an object with pipes");
        sass_block out;
        for (const auto& [name, v] : b["pipes"].items()) {
            const auto it = std::find(pipe_names.begin(), pipe_names.end(), name);
            if (it == pipe_names.end() || !v.is_number_unsigned())
                throw input_error(w + ".pipes." + name, "unknown pipe or not a count");
            out.pipes[std::size_t(it - pipe_names.begin())] = v.get<std::uint32_t>();
            out.instructions += v.get<std::uint32_t>();
        }
        if (b.contains("next"))
            for (const auto& s : b["next"]) {
                if (!s.is_number_unsigned() || s.get<std::size_t>() >= j.size())
                    throw input_error(w + ".next", "a successor must be a block of the function");
                out.successors.push_back(s.get<std::uint32_t>());
            }
        out.exits = b.value("exits", false);
        out.calls = b.value("calls", std::string());
        if (b.contains("anchors"))
            for (const auto& a : b["anchors"]) {
                if (!a.is_array() || a.size() < 4 || !a[0].is_string() || !a[1].is_number_unsigned() ||
                    !a[2].is_string() || !a[3].is_number_unsigned())
                    throw input_error(w + ".anchors", "an anchor is [file, line, kind, count(, \"predicated\")]");
                const auto k = std::find(anchor_names.begin(), anchor_names.end(), a[2].get<std::string>());
                if (k == anchor_names.end())
                    throw input_error(w + ".anchors", "unknown kind " + a[2].get<std::string>());
                out.anchors.push_back({{a[0].get<std::string>(), a[1].get<std::uint32_t>(),
                                        static_cast<sass_anchor_kind>(k - anchor_names.begin())},
                                       a[3].get<std::uint32_t>(),
                                       a.size() > 4});
            }
        f.blocks.push_back(std::move(out));
    }
    return f;
}

}  // namespace

nlohmann::json to_json(const sass_module& m) {
    nlohmann::json k = nlohmann::json::object(), s = nlohmann::json::object();
    for (const auto& [name, f] : m.kernels) k[name] = function_json(f);
    for (const auto& [name, f] : m.subroutines) s[name] = function_json(f);
    return {{"schema", "agpu.sass/1"}, {"arch", m.arch}, {"kernels", k}, {"subroutines", s}};
}

sass_module sass_module_from_json(const nlohmann::json& j, const std::string& where) {
    if (!j.is_object() || j.value("schema", "") != "agpu.sass/1")
        throw input_error(where + ": field schema", "must be \"agpu.sass/1\"");
    sass_module m;
    m.arch = j.value("arch", "");
    for (const char* key : {"kernels", "subroutines"}) {
        if (!j.contains(key) || !j[key].is_object()) throw input_error(where + ": field " + key, "must be an object");
        for (const auto& [name, f] : j[key].items())
            (std::string(key) == "kernels" ? m.kernels : m.subroutines)[name] =
                function_from_json(f, where + ": field " + key + "." + name);
    }
    return m;
}

}  // namespace agpu::model
