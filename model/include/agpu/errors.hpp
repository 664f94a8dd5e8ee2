// Typed errors shared by every layer (STYLE.md 6). Library code throws these;
// only the command line turns them into messages and exit statuses.
#pragma once

#include <stdexcept>
#include <string>

namespace agpu {

// Bad user input: a file, a field or an option that breaks a rule. The message
// names where (file and field, or option), and the rule. Exit status 2.
class input_error : public std::runtime_error {
public:
    input_error(std::string where, std::string rule)
        : std::runtime_error(where.empty() ? rule : where + ": " + rule), m_where(std::move(where)),
          m_rule(std::move(rule)) {}
    const std::string& where() const noexcept { return m_where; }
    const std::string& rule() const noexcept { return m_rule; }

private:
    std::string m_where;
    std::string m_rule;
};

// A count that does not fit 64 bits: the input (n, a parameter, a device) is
// beyond what agpu can count. An input_error (exit status 2); the message
// names the count and the operation that would have wrapped.
class count_overflow : public input_error {
public:
    using input_error::input_error;
};

// A feature that this build or this machine cannot provide (no CUDA toolkit at
// build time, no GPU at run time, no CUPTI). Exit status 3.
class unavailable_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// The GPU, CUDA or CUPTI failed while running (a kernel fault, a driver or
// profiler error): the message names the failing call and has the error's
// code, name and text; code() is the CUDA or CUPTI error code. Exit status 4.
class device_error : public std::runtime_error {
public:
    device_error(int code, const std::string& what) : std::runtime_error(what), m_code(code) {}
    int code() const noexcept { return m_code; }

private:
    int m_code;
};

// A simulated kernel broke a rule of the machine (an access outside its span,
// a barrier not reached by every thread, shared memory above M). Exit status 2:
// the run was asked for something the machine cannot do.
class kernel_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

// An internal invariant failed: a bug in agpu, never the user's input. Checked
// in release builds too (AGPU_CHECK).
class internal_error : public std::logic_error {
public:
    using std::logic_error::logic_error;
};

[[noreturn]] void fail_check(const char* expr, const char* file, int line, const std::string& what);

}  // namespace agpu

// Internal invariant, kept in release builds.
#define AGPU_CHECK(cond, what)                                              \
    do {                                                                    \
        if (!(cond)) ::agpu::fail_check(#cond, __FILE__, __LINE__, (what)); \
    } while (0)
