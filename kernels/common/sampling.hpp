// Declaring launches data-independent for the simulator's sampled mode.
#pragma once

namespace agpu::kernels {

// In its scope, the executor's launches are declared data-independent: their
// addresses and control flow depend on indices and sizes only, never on the
// values they read, so in the simulator's sampled mode their unrecorded
// blocks are skipped instead of run (sim::executor::set_skip_unrecorded).
// Declare it only where every launch in the scope qualifies and nothing after
// it depends on the values they write. On an executor without the notion (the
// GPU's) it does nothing.
template <class Exec>
class data_independent_launches {
public:
    explicit data_independent_launches(Exec& ex) : m_ex(ex) {
        if constexpr (requires { ex.set_skip_unrecorded(true); }) ex.set_skip_unrecorded(true);
    }
    ~data_independent_launches() {
        if constexpr (requires { m_ex.set_skip_unrecorded(false); }) m_ex.set_skip_unrecorded(false);
    }
    data_independent_launches(const data_independent_launches&) = delete;
    data_independent_launches& operator=(const data_independent_launches&) = delete;

private:
    Exec& m_ex;
};

}  // namespace agpu::kernels
