#include "autograd/autograd_meta.h"

#include <atomic>
#include <thread>

#include "autograd/accumulate_grad.h"
#include "autograd/functions.h"
#include "autograd/grad_mode.h"

namespace tg::autograd {

AutogradMeta::~AutogradMeta() {
  if (retained_grad_slot_ != nullptr) {
    std::lock_guard<std::mutex> lock(retained_grad_slot_->mutex);
    retained_grad_slot_->meta = nullptr;
  }
  // Graphs that still reach the leaf's AccumulateGrad outlive the leaf: they keep running its
  // hooks. See Note [The leaf holds its AccumulateGrad].
  if (grad_accumulator_ != nullptr && grad_accumulator_.use_count() > 1) grad_accumulator_->leaf_freed(std::move(hooks_));
}

namespace impl {

namespace {

// The tensor's hooks stay with the grad_fn they were registered on; new ones go to a new
// list. A retains_grad hook follows the tensor to its new grad_fn.
void update_tensor_hooks_on_new_grad_fn(AutogradMeta* meta, const std::shared_ptr<Node>& old_fn,
                                        uint32_t old_output_nr, const std::shared_ptr<Node>& new_fn) {
  meta->hooks_.reset();
  if (!meta->retains_grad_ || old_fn == nullptr || new_fn == nullptr) return;
  if (Node::RetainsGradHook hook = old_fn->pop_retains_grad_hook(old_output_nr)) {
    new_fn->set_retains_grad_hook(meta->output_nr_, std::move(hook));
  }
}

// Gives `view` a grad_fn that maps its gradient into its base's, over the base's current
// history. Precondition: meta->mutex_ held, meta->view_ set.
void regenerate_view_grad_fn(const Tensor& view, AutogradMeta* meta) {
  const Tensor& base = meta->view_->base;
  std::shared_ptr<Node> old_fn = std::move(meta->grad_fn_);
  const uint32_t old_output_nr = meta->output_nr_;
  auto fn = make_node<AsStridedViewBackward>(TensorGeometry(base), TensorGeometry(view), gradient_edge(base));
  fn->add_input_metadata(view);
  meta->grad_fn_ = fn;
  meta->output_nr_ = 0;
  meta->grad_fn_version_ = view._version();
  view.unsafeGetTensorImpl()->add_key(DispatchKey::Autograd);
  update_tensor_hooks_on_new_grad_fn(meta, old_fn, old_output_nr, fn);
}

}  // namespace

AutogradMeta* get_autograd_meta(const TensorBase& t) {
  if (!t.defined()) return nullptr;
  // Only autograd ever fills the slot (core knows the interface alone).
  return static_cast<AutogradMeta*>(t.unsafeGetTensorImpl()->autograd_meta());
}

namespace {
[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void raise_undefined_history() {
  TG_THROW(Error, "[autograd] cannot record history on an undefined tensor");
}
}  // namespace

AutogradMeta* materialize_autograd_meta(const TensorBase& t) {
  if (!t.defined()) raise_undefined_history();
  TensorImpl* impl = t.unsafeGetTensorImpl();
  if (impl->autograd_meta() == nullptr) impl->set_autograd_meta(std::make_unique<AutogradMeta>());
  return static_cast<AutogradMeta*>(impl->autograd_meta());
}

namespace {
// grad_fn of a view, out of line: its lock and regeneration are not on the path of
// ordinary tensors.
[[gnu::noinline]] const std::shared_ptr<Node>& view_grad_fn(const Tensor& t, AutogradMeta* meta) {
  // See Note [In-place on views].
  std::lock_guard<std::mutex> lock(meta->mutex_);
  const ViewInfo& view = *meta->view_;
  // A view made in no-grad mode stays a leaf; others follow their base.
  if (meta->grad_fn_ == nullptr && (view.created_in_no_grad || !view.base.requires_grad())) return meta->grad_fn_;
  if (meta->grad_fn_ == nullptr || meta->grad_fn_version_ != t._version()) regenerate_view_grad_fn(t, meta);
  return meta->grad_fn_;
}

// Holds meta.grad_accumulator_lock_; another thread that wants it yields until it is free.
class GradAccumulatorLock {
 public:
  explicit GradAccumulatorLock(AutogradMeta& meta) : flag_(meta.grad_accumulator_lock_) {
    while (flag_.test_and_set(std::memory_order_acquire)) std::this_thread::yield();
  }
  GradAccumulatorLock(const GradAccumulatorLock&) = delete;
  GradAccumulatorLock& operator=(const GradAccumulatorLock&) = delete;
  ~GradAccumulatorLock() { flag_.clear(std::memory_order_release); }

 private:
  std::atomic_flag& flag_;
};

[[noreturn]] [[gnu::cold]] [[gnu::noinline]] void raise_accumulator_of_non_leaf() {
  ::tg::detail::internal_assert_failed(TG_SOURCE_LOCATION, "meta->grad_fn_ == nullptr",
                                       "grad_accumulator() is for leaves only");
}
}  // namespace

const std::shared_ptr<Node>& grad_fn(const Tensor& t) {
  static const std::shared_ptr<Node> kNone;
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr) return kNone;
  if (meta->view_ == nullptr) return meta->grad_fn_;
  return view_grad_fn(t, meta);
}

Edge gradient_edge(const Tensor& t) {
  // A tensor that is not a view (every op's input in the common case): its meta read once.
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr) return Edge(nullptr, 0);
  if (meta->view_ == nullptr) {
    if (meta->grad_fn_ != nullptr) return Edge(meta->grad_fn_, meta->output_nr_);
    return Edge(grad_accumulator(t), 0);
  }
  if (const std::shared_ptr<Node>& fn = grad_fn(t)) return Edge(fn, meta->output_nr_);
  return Edge(grad_accumulator(t), 0);
}

std::shared_ptr<Node> grad_accumulator(const Tensor& t) {
  AutogradMeta* meta = get_autograd_meta(t);
  if (meta == nullptr || !meta->requires_grad_) return nullptr;
  if (meta->grad_fn_ != nullptr) raise_accumulator_of_non_leaf();
  const GradAccumulatorLock lock(*meta);
  std::shared_ptr<AccumulateGrad>& accumulator = meta->grad_accumulator_;
  // A node that no graph reaches is made again when what it recorded of the leaf is out of
  // date, as PyTorch makes a new one whenever no graph holds the old one.
  if (accumulator == nullptr || (accumulator.use_count() == 1 && !accumulator->describes(t))) {
    accumulator = make_node<AccumulateGrad>(t);
  }
  return accumulator;
}

void release_grad_accumulator(const Tensor& leaf) {
  AutogradMeta* meta = get_autograd_meta(leaf);
  if (meta == nullptr) return;
  std::shared_ptr<AccumulateGrad> released;
  {
    const GradAccumulatorLock lock(*meta);
    released = std::move(meta->grad_accumulator_);
  }
  if (released != nullptr && released.use_count() > 1) released->hold_leaf(leaf);
}

void set_gradient_edge(const Tensor& t, Edge edge) {
  AutogradMeta* meta = materialize_autograd_meta(t);
  const bool has_history = edge.function != nullptr;
  meta->grad_fn_ = std::move(edge.function);
  meta->output_nr_ = edge.input_nr;
  if (meta->view_ != nullptr) meta->grad_fn_version_ = t._version();
  // See Note [Autograd key on demand].
  if (has_history) t.unsafeGetTensorImpl()->add_key(DispatchKey::Autograd);
}

void rebase_history(const Tensor& t, Edge edge) {
  TG_INTERNAL_ASSERT(edge.function != nullptr, "rebase_history needs a node");
  AutogradMeta* meta = materialize_autograd_meta(t);
  if (meta->view_ != nullptr) {
    // See Note [In-place on views].
    TG_INTERNAL_ASSERT(edge.input_nr == 0, "an in-place op's self is output 0 of its node");
    TG_CHECK(edge.function->num_inputs() == 1, "Functions which modify views in-place must return a single Variable");
    const Tensor base = meta->view_->base;
    auto copy_slices = make_node<CopySlices>(base, TensorGeometry(t), std::move(edge.function));
    AutogradMeta* base_meta = materialize_autograd_meta(base);
    std::shared_ptr<Node> old_base_fn = base_meta->grad_fn_;
    const uint32_t old_base_output_nr = base_meta->output_nr_;
    set_gradient_edge(base, Edge(copy_slices, 0));
    update_tensor_hooks_on_new_grad_fn(base_meta, old_base_fn, old_base_output_nr, copy_slices);
    std::lock_guard<std::mutex> lock(meta->mutex_);
    regenerate_view_grad_fn(t, meta);
    return;
  }
  std::shared_ptr<Node> old_fn = meta->grad_fn_;
  const uint32_t old_output_nr = meta->output_nr_;
  std::shared_ptr<Node> new_fn = edge.function;
  set_gradient_edge(t, std::move(edge));
  update_tensor_hooks_on_new_grad_fn(meta, old_fn, old_output_nr, new_fn);
}

void set_view_of(const Tensor& view, const Tensor& base) {
  if (view.is_same(base)) return;
  TG_INTERNAL_ASSERT(view.is_alias_of(base), "set_view_of: the view does not share its base's storage");
  const AutogradMeta* base_meta = get_autograd_meta(base);
  const Tensor& root = (base_meta != nullptr && base_meta->view_ != nullptr) ? base_meta->view_->base : base;
  AutogradMeta* meta = materialize_autograd_meta(view);
  meta->view_ = std::make_unique<ViewInfo>(
      ViewInfo{root, DimVector(view.sizes()), DimVector(view.strides()), view.storage_offset(), !GradMode::is_enabled()});
  meta->grad_fn_version_ = view._version();
}

void adopt_untracked_view(const Tensor& t) {
  TensorImpl* base = t.unsafeGetTensorImpl()->view_base();
  if (base == nullptr) return;
  AutogradMeta* meta = materialize_autograd_meta(t);
  if (meta->view_ != nullptr) return;
  meta->view_ = std::make_unique<ViewInfo>(ViewInfo{Tensor(IntrusivePtr<TensorImpl>(base)), DimVector(t.sizes()),
                                                    DimVector(t.strides()), t.storage_offset(), false});
  meta->grad_fn_version_ = t._version();
}

Tensor alias_without_history(const Tensor& t) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.scalar_type(), t.sizes());
  impl->set_sizes_and_strides(t.sizes(), t.strides());
  impl->set_storage_offset(t.storage_offset());
  return Tensor(std::move(impl));
}

}  // namespace impl
}  // namespace tg::autograd
