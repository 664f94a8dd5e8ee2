// Merging datasets of one GPU and suite (merge_datasets): sessions kept
// oldest first, each run's latest measurement kept.
#include <algorithm>
#include <map>

#include "agpu/errors.hpp"
#include "agpu/utc_time.hpp"
#include "agpu/validate/dataset.hpp"
#include "gzip.hpp"

namespace agpu::validate {
namespace {

// One session of one input, with the complete runs it measured (in row order).
struct session_runs {
    std::size_t input = 0;
    nlohmann::json session;
    std::vector<std::string> runs;
};

// The input's settings that a merged session keeps beside it: everything but
// its schema and sessions.
nlohmann::json settings_of(const nlohmann::json& prov) {
    nlohmann::json s = prov;
    s.erase("schema");
    s.erase("sessions");
    return s;
}

std::string text_field(const nlohmann::json& j, const char* key) {
    return j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "";
}

}  // namespace

merge_result merge_datasets(const std::vector<std::filesystem::path>& inputs, const std::filesystem::path& out,
                            const std::string& command_line) {
    if (inputs.size() < 2) throw input_error("merge", "needs at least two datasets");
    if (std::filesystem::exists(out))
        throw input_error(out.string(), "already exists: a merge writes a new dataset and replaces nothing");

    std::vector<dataset> in;
    for (const auto& p : inputs) in.push_back(read_dataset(p));
    const auto& first = in.front().provenance;
    for (std::size_t i = 1; i < in.size(); ++i) {
        const auto& p = in[i].provenance;
        const std::string where = (inputs[i] / "provenance.json").string();
        if (text_field(p, "device_id") != text_field(first, "device_id"))
            throw input_error(where + ": field device_id",
                              "is " + text_field(p, "device_id") + ", " + inputs[0].string() + " has " +
                                  text_field(first, "device_id") + ": merge datasets of one device");
        if (p["gpu"].value("name", "") != first["gpu"].value("name", ""))
            throw input_error(where + ": field gpu.name",
                              "is " + p["gpu"].value("name", "?") + ", " + inputs[0].string() + " has " +
                                  first["gpu"].value("name", "?") + ": merge datasets of one GPU");
        if (text_field(p, "suite") != text_field(first, "suite"))
            throw input_error(where + ": field suite", "is " + text_field(p, "suite") + ", " + inputs[0].string() +
                                                           " has " + text_field(first, "suite") +
                                                           ": merge datasets of one suite");
    }

    // Each session's complete runs: a dataset's rows are appended session by
    // session, so session j holds the complete runs after its
    // runs_already_complete, runs_measured of them.
    merge_result r;
    std::vector<session_runs> sessions;
    std::vector<std::map<std::string, std::vector<const measurement*>>> rows_of(in.size());
    for (std::size_t i = 0; i < in.size(); ++i) {
        std::vector<std::string> order;
        std::set<std::string> complete = completed_runs(in[i].rows);
        for (const auto& row : in[i].rows) {
            auto& rows = rows_of[i][row.run_id];
            if (rows.empty() && complete.count(row.run_id)) order.push_back(row.run_id);
            if (complete.count(row.run_id)) rows.push_back(&row);
            else ++r.runs_incomplete;
        }
        // Sort the complete runs by where their "complete" row stands (a run
        // completes after all its rows).
        std::map<std::string, std::size_t> completed_at;
        for (std::size_t k = 0; k < in[i].rows.size(); ++k)
            if (in[i].rows[k].launch == "run" && in[i].rows[k].counter == "complete")
                completed_at[in[i].rows[k].run_id] = k;
        std::sort(order.begin(), order.end(),
                  [&](const std::string& a, const std::string& b) { return completed_at[a] < completed_at[b]; });
        const auto& ss = in[i].provenance["sessions"];
        std::size_t next = 0;
        for (std::size_t j = 0; j < ss.size(); ++j) {
            session_runs s{i, ss[j], {}};
            const std::size_t before = ss[j].value("runs_already_complete", std::uint64_t(next));
            const std::size_t measured = ss[j].value("runs_measured", std::uint64_t(0));
            for (std::size_t k = before; k < before + measured && k < order.size(); ++k) s.runs.push_back(order[k]);
            next = before + measured;
            sessions.push_back(std::move(s));
        }
        if (next != order.size())
            throw input_error((inputs[i] / "provenance.json").string() + ": field sessions",
                              "account for " + std::to_string(next) + " complete runs, measurements has " +
                                  std::to_string(order.size()));
    }
    // Oldest first; a run measured again belongs to the session that finished last.
    std::stable_sort(sessions.begin(), sessions.end(), [](const session_runs& a, const session_runs& b) {
        return text_field(a.session, "started") < text_field(b.session, "started");
    });
    std::map<std::string, std::size_t> latest;  // run -> index in sessions
    for (std::size_t k = 0; k < sessions.size(); ++k)
        for (const auto& run : sessions[k].runs) {
            auto [it, fresh] = latest.try_emplace(run, k);
            if (!fresh) {
                const auto& other = sessions[it->second].session;
                if (text_field(sessions[k].session, "finished") >= text_field(other, "finished")) it->second = k;
                ++r.runs_replaced;
            }
        }

    // The rows, session by session; the provenance of the newest input with
    // every session, each keeping its input's settings.
    std::vector<measurement> kept;
    nlohmann::json merged_sessions = nlohmann::json::array();
    std::size_t before = 0;
    std::size_t newest = 0;
    for (std::size_t k = 0; k < sessions.size(); ++k) {
        std::size_t measured = 0;
        for (const auto& run : sessions[k].runs) {
            if (latest.at(run) != k) continue;
            for (const auto* row : rows_of[sessions[k].input].at(run)) kept.push_back(*row);
            ++measured;
        }
        nlohmann::json s = sessions[k].session;
        s["runs_already_complete"] = before;
        s["runs_measured"] = measured;
        s["source"] = {{"dataset", inputs[sessions[k].input].string()},
                       {"settings", settings_of(in[sessions[k].input].provenance)}};
        if (measured < sessions[k].runs.size()) s["runs_measured_again_later"] = sessions[k].runs.size() - measured;
        before += measured;
        merged_sessions.push_back(std::move(s));
        newest = sessions[k].input;
    }
    r.runs = before;

    nlohmann::json prov = in[newest].provenance;
    prov["sessions"] = merged_sessions;
    nlohmann::json from = nlohmann::json::array();
    for (const auto& p : inputs) from.push_back(p.string());
    prov["merged"] = {{"command_line", command_line}, {"date", utc_now()}, {"from", from}};

    // Written to a temporary directory beside `out`, checked, then renamed into place.
    auto tmp = out;
    tmp += ".merging";
    std::filesystem::remove_all(tmp);
    std::error_code ec;
    std::filesystem::create_directories(tmp, ec);
    if (ec) throw input_error(tmp.string(), "cannot create: " + ec.message());
    try {
        {
            measurement_writer w(tmp);
            w.append_run(kept);
        }
        write_provenance(tmp, prov);
        read_dataset(tmp);  // the provenance agrees with the rows
        pack_dataset(tmp);
        std::filesystem::rename(tmp, out, ec);
        if (ec) throw input_error(out.string(), "cannot create: " + ec.message());
    } catch (...) {
        std::filesystem::remove_all(tmp, ec);
        throw;
    }
    return r;
}

}  // namespace agpu::validate
