#include "core/layout.h"

#include <algorithm>
#include <charconv>
#include <numeric>

#include "core/checked_math.h"

namespace gradconf {

bool LayoutSpec::contiguous() const {
  if (pad != 0 || offset != 0 || broadcast != 0) return false;
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int>(i)) return false;
  }
  return true;
}

std::string LayoutSpec::to_string() const {
  std::string parts;
  auto add = [&](char tag, const std::string& value) {
    if (!parts.empty()) parts += '.';
    parts += tag;
    parts += value;
  };
  bool identity = true;
  for (size_t i = 0; i < order.size(); ++i) identity = identity && order[i] == static_cast<int>(i);
  if (!identity) {
    std::string digits;
    for (int d : order) digits += static_cast<char>('0' + d);
    add('o', digits);
  }
  if (pad != 0) add('p', std::to_string(pad));
  if (offset != 0) add('f', std::to_string(offset));
  if (broadcast != 0) add('b', std::to_string(broadcast));
  return parts;
}

namespace {
std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}
}  // namespace

std::optional<LayoutSpec> LayoutSpec::parse(std::string_view text, size_t rank) {
  const std::string_view original = text;
  LayoutSpec spec;
  while (!text.empty()) {
    const size_t dot = text.find('.');
    const std::string_view part = text.substr(0, dot);
    text = dot == std::string_view::npos ? std::string_view() : text.substr(dot + 1);
    if (part.size() < 2) return std::nullopt;
    const std::string_view value = part.substr(1);
    switch (part[0]) {
      case 'o': {
        if (value.size() != rank) return std::nullopt;
        std::vector<int> order;
        for (char ch : value) {
          if (ch < '0' || ch >= '0' + static_cast<int>(rank)) return std::nullopt;
          order.push_back(ch - '0');
        }
        std::vector<int> sorted = order;
        std::sort(sorted.begin(), sorted.end());
        for (size_t i = 0; i < rank; ++i) {
          if (sorted[i] != static_cast<int>(i)) return std::nullopt;
        }
        spec.order = order;
        break;
      }
      case 'p':
      case 'f': {
        auto v = parse_int(value);
        if (!v || *v < 0 || *v > (int64_t{1} << 20)) return std::nullopt;
        (part[0] == 'p' ? spec.pad : spec.offset) = *v;
        break;
      }
      case 'b': {
        auto v = parse_int(value);
        if (!v || *v < 0 || *v >= (int64_t{1} << rank)) return std::nullopt;
        spec.broadcast = static_cast<uint32_t>(*v);
        break;
      }
      default:
        return std::nullopt;
    }
  }
  // Only the canonical spelling (to_string's) is accepted, so a repro line round-trips exactly:
  // no repeated or reordered parts, no identity order, no zero values.
  if (spec.to_string() != original) return std::nullopt;
  return spec;
}

void contiguous_strides(std::span<const int64_t> dims, std::span<int64_t> strides) {
  // Saturates at INT64_MAX instead of overflowing: no storage can hold such a view, so
  // aclCreateTensor rejects it, which is what a caller passing such dims must see.
  if (dims.empty()) return;
  strides[dims.size() - 1] = 1;
  for (size_t i = dims.size(); i-- > 1;) {
    strides[i - 1] = checked_mul(strides[i], std::max<int64_t>(dims[i], 1)).value_or(INT64_MAX);
  }
}

std::vector<int64_t> contiguous_strides(std::span<const int64_t> dims) {
  std::vector<int64_t> strides(dims.size());
  contiguous_strides(dims, strides);
  return strides;
}

std::optional<ViewGeometry> make_geometry(std::span<const int64_t> dims, const LayoutSpec& spec) {
  const size_t rank = dims.size();
  std::vector<int> order = spec.order;
  if (order.empty()) {
    order.resize(rank);
    std::iota(order.begin(), order.end(), 0);
  }
  if (order.size() != rank || spec.pad < 0 || spec.offset < 0) return std::nullopt;
  if (rank < 32 && (spec.broadcast >> rank) != 0) return std::nullopt;
  ViewGeometry g;
  g.strides.assign(rank, 0);
  g.offset = spec.offset;
  // Innermost first: each level's stride steps over the level inside it plus the padding.
  int64_t step = 1;
  for (size_t k = rank; k-- > 0;) {
    const int d = order[k];
    if ((spec.broadcast >> d) & 1u) continue;  // stride 0, takes no storage
    g.strides[d] = step;
    auto extent = checked_mul(step, std::max<int64_t>(dims[d], 1));
    auto next = extent ? checked_add(*extent, spec.pad) : std::nullopt;
    if (!next) return std::nullopt;
    step = *next;
  }
  auto total = checked_add(step, spec.offset);
  if (!total) return std::nullopt;
  g.storage_numel = *total;
  return g;
}

}  // namespace gradconf
