#include "agpu/errors.hpp"
#include "agpu/validate/cupti.hpp"
#include "agpu/validate/gpu.hpp"

namespace agpu::validate {

std::vector<std::pair<std::string, double>> metric_terms(std::string_view expr) {
    std::vector<std::pair<std::string, double>> out;
    double sign = 1;
    std::size_t start = 0;
    while (start <= expr.size()) {
        const auto op = expr.find_first_of("+-", start);
        std::string part(expr.substr(start, op == std::string_view::npos ? expr.npos : op - start));
        double scale = sign;  // "metric/N": the metric divided by N
        if (const auto slash = part.find('/'); slash != std::string::npos) {
            scale /= std::stod(part.substr(slash + 1));
            part.resize(slash);
        }
        out.emplace_back(std::move(part), scale);
        if (op == std::string_view::npos) break;
        sign = expr[op] == '-' ? -1 : 1;
        start = op + 1;
    }
    return out;
}

void require_gpu(const std::string& what_for) {
    const auto s = query_gpus();
    if (!s.available) throw unavailable_error(what_for + " needs a GPU: " + s.reason);
}

}  // namespace agpu::validate
