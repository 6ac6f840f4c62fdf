#include "autograd/forward_ad.h"

#include <algorithm>
#include <atomic>
#include <memory>

#include "Functions.h"
#include "TensorMethods.h"
#include "autograd/autograd_meta.h"
#include "autograd/variable_type_utils.h"
#include "core/error.h"
#include "dispatch/local_dispatch_key_set.h"

namespace tg::autograd::forward_ad {
namespace {

struct LevelState {
  explicit LevelState(uint64_t level_id) : id(level_id) {}

  uint64_t id;
  int masked = 0;  // LevelMask depth
  std::vector<std::weak_ptr<TangentSlot>> slots;  // emptied on exit
  size_t slots_after_pruning = 0;

  // Keeps the level's list in proportion to the tangents alive: the slots of freed tensors are
  // pruned whenever the list has doubled.
  void remember(const std::shared_ptr<TangentSlot>& slot) {
    if (slots.size() >= 2 * slots_after_pruning + 64) {
      std::erase_if(slots, [](const std::weak_ptr<TangentSlot>& weak) { return weak.expired(); });
      slots_after_pruning = slots.size();
    }
    slots.push_back(slot);
  }
};

// This thread's live levels, innermost last.
thread_local std::vector<LevelState> tls_levels;
// Live unmasked levels: kept so that the per-operator test is one load.
thread_local int tls_unmasked __attribute__((tls_model("initial-exec"))) = 0;
std::atomic<uint64_t> next_level_id{1};

LevelState* find_level(uint64_t id) {
  for (LevelState& s : tls_levels) {
    if (s.id == id) return &s;
  }
  return nullptr;
}

bool is_live(uint64_t id) { return find_level(id) != nullptr; }

uint64_t resolve(std::optional<uint64_t> level, const char* op) {
  TG_CHECK(!tls_levels.empty(), "[", op, "] no dual level is active: enter one with "
           "tg::autograd::forward_ad::dual_level (or use tg::func::jvp)");
  if (!level) return tls_levels.back().id;
  TG_CHECK(is_live(*level), "[", op, "] dual level ", *level, " is not active on this thread");
  return *level;
}

}  // namespace

uint64_t enter_dual_level() {
  uint64_t id = next_level_id.fetch_add(1);
  tls_levels.emplace_back(id);
  ++tls_unmasked;
  return id;
}

void exit_dual_level(uint64_t level) {
  TG_CHECK(!tls_levels.empty() && tls_levels.back().id == level, "[exit_dual_level] level ", level,
           " is not the innermost active dual level; levels exit in reverse order of entry");
  LevelState& state = tls_levels.back();
  if (state.masked == 0) --tls_unmasked;
  // Moved out first: freeing a tangent may run code that looks at the level stack.
  std::vector<std::weak_ptr<TangentSlot>> slots = std::move(state.slots);
  tls_levels.pop_back();
  for (const std::weak_ptr<TangentSlot>& weak : slots) {
    if (std::shared_ptr<TangentSlot> slot = weak.lock()) slot->value = Tensor();
  }
}

dual_level::dual_level() : level_(enter_dual_level()) {}
dual_level::~dual_level() { exit_dual_level(level_); }

Tensor make_dual(const Tensor& primal, const Tensor& tangent, std::optional<uint64_t> level) {
  uint64_t id = resolve(level, "make_dual");
  TG_CHECK(primal.defined() && tangent.defined(), "[make_dual] expected defined primal and tangent");
  TG_CHECK(primal.sizes() == tangent.sizes(), "[make_dual] expected a tangent of the primal's shape ",
           primal.sizes(), ", got ", tangent.sizes());
  TG_CHECK(primal.scalar_type() == tangent.scalar_type(), "[make_dual] expected a tangent of dtype ",
           primal.scalar_type(), ", got ", tangent.scalar_type());
  TG_CHECK(is_floating_type(primal.scalar_type()), "[make_dual] expected a floating-point primal, got ",
           primal.scalar_type());
  Tensor dual;
  {
    detail::LevelMask mask(id);  // the alias must not inherit primal's own tangent here
    dual = primal.expand(primal.sizes());
  }
  detail::set_tangent(dual, id, tangent, "make_dual");
  return dual;
}

UnpackedDual unpack_dual(const Tensor& tensor, std::optional<uint64_t> level) {
  uint64_t id = resolve(level, "unpack_dual");
  Tensor tangent = detail::tangent(tensor, id);
  detail::LevelMask mask(id);
  return {tensor.expand(tensor.sizes()), tangent};
}

namespace detail {

bool any_level_active() noexcept { return tls_unmasked > 0; }

std::vector<uint64_t> active_levels() {
  std::vector<uint64_t> levels;
  for (const LevelState& s : tls_levels) {
    if (s.masked == 0) levels.push_back(s.id);
  }
  return levels;
}

LevelMask::LevelMask(uint64_t level) : level_(level) {
  LevelState* s = find_level(level);
  TG_INTERNAL_ASSERT(s != nullptr, "masking a dead dual level");
  if (s->masked++ == 0) --tls_unmasked;
}

LevelMask::~LevelMask() {
  LevelState* s = find_level(level_);
  if (s != nullptr && --s->masked == 0) ++tls_unmasked;
}

Tensor tangent(const Tensor& t, uint64_t level) {
  if (!t.defined()) return Tensor();
  const AutogradMeta* meta = impl::get_autograd_meta(t);
  if (meta == nullptr) return Tensor();
  for (const auto& [id, slot] : meta->tangents_) {
    if (id == level) return slot->value;
  }
  return Tensor();
}

bool has_tangent(uint64_t level, const Tensor& t) { return tangent(t, level).defined(); }
bool has_tangent(uint64_t level, const std::optional<Tensor>& t) { return t && has_tangent(level, *t); }
bool has_tangent(uint64_t level, TensorList list) {
  return std::any_of(list.begin(), list.end(), [&](const Tensor& t) { return has_tangent(level, t); });
}

Tensor tangent_or_zeros(const Tensor& t, uint64_t level) {
  if (!t.defined()) return Tensor();
  Tensor value = tangent(t, level);
  if (value.defined()) return value;
  // A zero that takes no memory (stride 0): formulas only read it.
  return tg::zeros({}, TensorOptions().dtype(t.scalar_type()).device(t.device())).expand(t.sizes());
}

std::optional<Tensor> tangent_or_zeros(const std::optional<Tensor>& t, uint64_t level) {
  if (!t || !t->defined()) return std::nullopt;
  return tangent_or_zeros(*t, level);
}

std::vector<Tensor> tangent_or_zeros(TensorList list, uint64_t level) {
  std::vector<Tensor> out;
  out.reserve(list.size());
  for (const Tensor& t : list) out.push_back(tangent_or_zeros(t, level));
  return out;
}

void set_tangent(const Tensor& output, uint64_t level, const Tensor& value, const char* op) {
  if (!output.defined() || !value.defined() || !is_floating_type(output.scalar_type())) return;
  if (!is_live(level)) return;  // the level has exited: its tangents are gone
  Tensor t = value;
  if (t.sizes() != output.sizes()) {
    TG_INTERNAL_ASSERT(is_expandable_to(t.sizes(), output.sizes()), "[", op, "] tangent formula gave shape ",
                       t.sizes(), " for an output of shape ", output.sizes());
    t = t.expand(output.sizes());
  }
  if (t.scalar_type() != output.scalar_type()) t = t.to(output.scalar_type());
  AutogradMeta* meta = impl::materialize_autograd_meta(output);
  auto& tangents = meta->tangents_;
  std::erase_if(tangents, [&](const auto& entry) { return entry.first == level || !is_live(entry.first); });
  auto slot = std::make_shared<TangentSlot>(TangentSlot{std::move(t)});
  find_level(level)->remember(slot);
  tangents.emplace_back(level, std::move(slot));
  output.unsafeGetTensorImpl()->add_key(DispatchKey::Autograd);  // See the header's invariant.
}

void raise_not_implemented(const char* op, const char* reason) {
  TG_CHECK(false, "[", op, "] forward-mode AD (a tangent) is not implemented: ", reason);
  __builtin_unreachable();
}

}  // namespace detail
}  // namespace tg::autograd::forward_ad
