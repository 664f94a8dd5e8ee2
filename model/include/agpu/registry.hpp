// A table of T by key, filled at start-up by registrar objects placed beside
// each piece (an algorithm's simulator run, its GPU run, its closed form, a
// suite), so that adding one touches no central list (STYLE.md 2).
#pragma once

#include <map>
#include <string>

#include "agpu/errors.hpp"

namespace agpu {

template <class T>
class keyed_registry {
public:
    static const std::map<std::string, T>& all() { return table(); }

    // `key` must not refer into `value` (argument order is unspecified).
    static void add(const std::string& key, T value) {
        AGPU_CHECK(!table().count(key), "registered twice: " + key);
        table().emplace(key, std::move(value));
    }

    static const T* find(const std::string& key) {
        auto it = table().find(key);
        return it == table().end() ? nullptr : &it->second;
    }

    // The entry, or an input_error naming `option` and listing the known keys.
    static const T& get(const std::string& key, const std::string& option, const std::string& what) {
        if (const T* t = find(key)) return *t;
        std::string known;
        for (const auto& [k, v] : table()) known += (known.empty() ? "" : ", ") + k;
        throw input_error(option + " " + key, "unknown " + what + " (known: " + known + ")");
    }

private:
    static std::map<std::string, T>& table() {
        static std::map<std::string, T> t;  // built on first use: safe from any registrar's constructor
        return t;
    }
};

}  // namespace agpu
