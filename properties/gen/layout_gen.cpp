#include "gen/layout_gen.h"

#include "core/tensor.h"

#include <algorithm>
#include <array>
#include <numeric>

namespace gradconf {

void showValue(const LayoutSpec& layout, std::ostream& os) {
  const std::string text = layout.to_string();
  os << (text.empty() ? std::string("contiguous") : text);
}

}  // namespace gradconf

namespace gradconf::props {
namespace {

std::vector<int> canonical(std::vector<int> order) {
  for (size_t i = 0; i < order.size(); ++i) {
    if (order[i] != static_cast<int>(i)) return order;
  }
  return {};
}

rc::Gen<std::vector<int>> gen_order(const std::vector<std::vector<int>>& orders,
                                    bool include_identity) {
  std::vector<std::vector<int>> usable;
  for (const auto& order : orders) {
    if (include_identity || !order.empty()) usable.push_back(order);
  }
  if (usable.empty()) usable.push_back({});
  return rc::gen::elementOf(usable);
}

}  // namespace

namespace {
std::vector<std::vector<int>> make_standard_orders(int rank) {
  std::vector<int> identity(static_cast<size_t>(std::max(rank, 0)));
  std::iota(identity.begin(), identity.end(), 0);
  std::vector<std::vector<int>> orders = {{}};
  auto add = [&](std::vector<int> order) {
    order = canonical(std::move(order));
    if (std::find(orders.begin(), orders.end(), order) == orders.end()) orders.push_back(order);
  };
  if (rank >= 2) {
    std::vector<int> reversed(identity.rbegin(), identity.rend());
    add(reversed);
    std::vector<int> inner_swapped = identity;
    std::swap(inner_swapped[static_cast<size_t>(rank - 1)],
              inner_swapped[static_cast<size_t>(rank - 2)]);
    add(inner_swapped);
    std::vector<int> last_first = identity;  // 4-D: 0 2 3 1, channels-last
    std::rotate(last_first.begin() + 1, last_first.begin() + 2, last_first.end());
    add(last_first);
    std::vector<int> first_last = identity;
    std::rotate(first_last.begin(), first_last.begin() + 1, first_last.end());
    add(first_last);
  }
  return orders;
}
}  // namespace

const std::vector<std::vector<int>>& standard_orders(int rank) {
  // Built once: fuzz targets ask for them on every input.
  static constexpr int kRanks = static_cast<int>(kMaxRank) + 1;
  static const auto by_rank = [] {
    std::array<std::vector<std::vector<int>>, kRanks> table;
    for (int r = 0; r < kRanks; ++r) table[static_cast<size_t>(r)] = make_standard_orders(r);
    return table;
  }();
  return by_rank[static_cast<size_t>(std::clamp(rank, 0, kRanks - 1))];
}

rc::Gen<LayoutSpec> gen_layout(int rank, bool is_input, const LayoutLimits& limits,
                               std::vector<std::vector<int>> orders) {
  if (orders.empty()) orders = standard_orders(rank);
  for (auto& order : orders) order = canonical(order);
  const uint32_t all_dims = (rank >= 32 ? ~0u : (1u << rank) - 1) & limits.broadcastable_dims;
  const auto pad = rc::gen::inRange<int64_t>(1, limits.max_pad + 1);
  const auto offset = rc::gen::inRange<int64_t>(1, limits.max_offset + 1);
  // Masked: the bits drawn may fall outside the broadcastable dims (then fewer dims broadcast).
  const auto broadcast = rc::gen::map(rc::gen::inRange<uint32_t>(1, all_dims + 1),
                                      [all_dims](uint32_t bits) { return bits & all_dims; });
  const auto combined = rc::gen::build<LayoutSpec>(
      rc::gen::set(&LayoutSpec::order, gen_order(orders, true)),
      rc::gen::set(&LayoutSpec::pad, rc::gen::inRange<int64_t>(0, limits.max_pad + 1)),
      rc::gen::set(&LayoutSpec::offset, rc::gen::inRange<int64_t>(0, limits.max_offset + 1)),
      rc::gen::set(&LayoutSpec::broadcast,
                   is_input ? rc::gen::map(rc::gen::inRange<uint32_t>(0, all_dims + 1),
                                           [all_dims](uint32_t bits) { return bits & all_dims; })
                            : rc::gen::just(0u)));
  return rc::gen::weightedOneOf<LayoutSpec>({
      {14, rc::gen::just(LayoutSpec{})},
      {rank >= 2 ? 3u : 0u,
       rc::gen::build<LayoutSpec>(rc::gen::set(&LayoutSpec::order, gen_order(orders, false)))},
      {3, rc::gen::build<LayoutSpec>(rc::gen::set(&LayoutSpec::pad, pad))},
      {2, rc::gen::build<LayoutSpec>(rc::gen::set(&LayoutSpec::offset, offset))},
      {is_input && all_dims != 0 ? 2u : 0u,
       rc::gen::build<LayoutSpec>(rc::gen::set(&LayoutSpec::broadcast, broadcast))},
      {4, combined},
  });
}

std::vector<std::string_view> layout_kinds(const LayoutSpec& layout) {
  if (layout.contiguous()) return {"contiguous"};
  std::vector<std::string_view> kinds;
  bool identity = true;
  for (size_t i = 0; i < layout.order.size(); ++i) {
    identity = identity && layout.order[i] == static_cast<int>(i);
  }
  if (!identity) kinds.push_back("permuted");
  if (layout.pad != 0) kinds.push_back("padded");
  if (layout.offset != 0) kinds.push_back("offset");
  if (layout.broadcast != 0) kinds.push_back("broadcast");
  return kinds;
}

LayoutRule default_layout_rule(const RoleSpec& role) {
  return {.broadcastable = !role.output && !role.index_input()};
}

LayoutRule default_layout_rule(const EntrySpec& entry, std::string_view role) {
  const RoleSpec* spec = entry.role(role);
  return spec ? default_layout_rule(*spec) : LayoutRule{};
}

}  // namespace gradconf::props
