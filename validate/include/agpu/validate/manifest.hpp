// The data manifest: validate/data/manifest.json lists every dataset in the
// tree (validate/data/<device>/<purpose>/<suite>/, validate/data/host/...)
// with what it holds and what reads it; validate/data/README.md carries the
// table rendered from it and from each dataset's provenance (the commands that
// made it and their commits). check_manifest says where the tree and the
// manifest disagree.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace agpu::validate {

inline constexpr const char* manifest_schema = "agpu.data-manifest/1";

// What reads a dataset: "fit" and "fit-check" (the committed fit's datasets
// and check datasets, model/fits/*.json), "report" (agpu report's defaults),
// "test: FILE" and "doc: FILE" (a file of the repository that names the
// dataset's path).
struct manifest_entry {
    std::string path;  // relative to validate/data, e.g. "h100/timing/stats"
    std::string holds;
    std::vector<std::string> read_by;
};

struct manifest {
    std::vector<manifest_entry> datasets;
    std::string removed_commit;        // the last commit that held what left the tree
    std::vector<std::string> removed;  // paths (relative to validate/data) that left the tree
};

// Reads and checks manifest.json (schema, fields, types, read_by vocabulary);
// errors name the file, the field and the rule.
manifest read_manifest(const std::filesystem::path& file);

// The dataset directories under `data_root` (relative paths, sorted).
std::vector<std::string> datasets_in_tree(const std::filesystem::path& data_root);

// The README's table: one row per dataset, with its provenance's GPU, runs,
// commands and commits. Deterministic for a given tree.
std::string render_manifest_table(const manifest& m, const std::filesystem::path& data_root);

// Every disagreement between the manifest and the repository, one line each
// (empty: they agree): a dataset in the tree and not listed, or listed and
// not there; a file in data_root other than datasets' measurements and
// provenance, README.md and manifest.json; a "fit"/"fit-check" entry that the
// fit files under `fits_dir` do not name, or a fit dataset without one; a
// "test:"/"doc:" file missing or not naming the path; the README's table not
// what render_manifest_table gives.
std::vector<std::string> check_manifest(const std::filesystem::path& repository_root);

// Rewrites the table in validate/data/README.md (between its markers) from
// the manifest; returns false where it was already up to date.
bool write_manifest_table(const std::filesystem::path& repository_root);

}  // namespace agpu::validate
