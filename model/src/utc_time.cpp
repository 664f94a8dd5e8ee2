#include "agpu/utc_time.hpp"

#include <chrono>
#include <ctime>

namespace agpu {

std::string utc_now(const char* format) {
    const std::time_t t = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
    std::tm tm{};
    gmtime_r(&t, &tm);
    char buf[64];
    const std::size_t len = std::strftime(buf, sizeof buf, format, &tm);
    return std::string(buf, len);
}

}  // namespace agpu
