// The interpreter stack: one entry per transform (vmap, grad, jvp) running on this thread,
// innermost last, each with a level id that is unique for the process and never reused.
// Invariant: a BatchedTensor is usable only while the vmap of its level is on the stack;
// after that it has escaped its transform, and using it is an error naming the transform.
// Threading: the stack is thread-local; transforms run on the thread that called them.
#pragma once

#include <cstdint>
#include <unordered_set>
#include <string_view>
#include <vector>

namespace tg::functorch {

enum class TransformType { Vmap, Grad, Vjp, Jvp };
std::string_view to_string(TransformType type);

struct Interpreter {
  TransformType type;
  int64_t level;
  int64_t batch_size;  // vmap only
};

// The interpreter of `level`, or nullptr when that transform has exited.
const Interpreter* find_interpreter(int64_t level);
// How many transforms of `type` are running on this thread.
int64_t depth(TransformType type);
// The innermost running grad, vjp or jvp, or nullptr.
const Interpreter* innermost_differentiating();
// See Note [Captured tensors] in capture_check.cpp: the TensorImpls created while the innermost
// grad/vjp/jvp runs (including inside transforms nested in it) are recorded; any other tensor
// is captured from outside it.
void note_created(const void* impl);
bool created_inside_innermost(const void* impl);
// The running vmaps, outermost (lowest level) first.
std::vector<Interpreter> live_vmaps();

// RAII: pushes an interpreter for the lifetime of a transform's call.
class InterpreterGuard {
 public:
  explicit InterpreterGuard(TransformType type, int64_t batch_size = 0);
  ~InterpreterGuard();
  InterpreterGuard(const InterpreterGuard&) = delete;
  InterpreterGuard& operator=(const InterpreterGuard&) = delete;
  int64_t level() const noexcept { return level_; }

 private:
  int64_t level_;
};

}  // namespace tg::functorch
