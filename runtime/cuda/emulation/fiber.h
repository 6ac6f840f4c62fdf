// Fibers for the threads of an emulated block: a stack and a saved context, switched
// cooperatively on one host thread. Invariant: a fiber runs until it switches back itself;
// nothing preempts it. x86-64 uses a hand-written switch (callee-saved registers, MXCSR and
// the x87 control word: no system call); other targets use ucontext. Threading: a fiber is
// created, run and resumed on one host thread.
#pragma once

#include <cstddef>

#if !defined(__x86_64__)
#include <ucontext.h>
#endif

namespace tg::cuda::emu {

struct FiberContext {
#if defined(__x86_64__)
  void* sp = nullptr;
#else
  ucontext_t context;
#endif
};

// Prepares `fiber` to run entry() on [stack, stack + size) at its first switch_to. entry
// must never return: it switches away for good.
void fiber_init(FiberContext& fiber, void* stack, size_t size, void (*entry)());
// Saves the running context into `from` and resumes `to`.
void fiber_switch(FiberContext& from, FiberContext& to);

// Stacks for fibers, reused: a thread that finishes returns its stack before the next starts,
// so a kernel without barriers uses one. Each has a guard page below it.
class StackPool {
 public:
  static constexpr size_t kStackBytes = 256 * 1024;
  ~StackPool();
  void* take();
  void give_back(void* stack);

 private:
  void** free_ = nullptr;
  size_t free_count_ = 0, capacity_ = 0;
};

}  // namespace tg::cuda::emu
