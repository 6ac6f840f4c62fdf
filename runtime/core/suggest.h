// "Did you mean" support: the candidate closest to a misspelt name, by edit distance.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace tg {

// Levenshtein distance; names are short, so the quadratic table is fine.
size_t edit_distance(std::string_view a, std::string_view b);

// The candidate nearest to `name` within `max_distance` edits (the first on ties), if any.
std::optional<std::string> closest_match(std::string_view name, const std::vector<std::string_view>& candidates,
                                         size_t max_distance);

}  // namespace tg
