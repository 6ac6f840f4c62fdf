#include "cuda/emulation/fiber.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>

#if defined(__x86_64__)
// tg_emu_switch(void** save_sp, void* new_sp): pushes the callee-saved registers and the
// floating-point control words, saves the stack pointer, and pops the same from the new one.
asm(R"(
  .pushsection .text
  .globl tg_emu_switch
  .type tg_emu_switch, @function
tg_emu_switch:
  pushq %rbp
  pushq %rbx
  pushq %r12
  pushq %r13
  pushq %r14
  pushq %r15
  subq $8, %rsp
  stmxcsr (%rsp)
  fnstcw 4(%rsp)
  movq %rsp, (%rdi)
  movq %rsi, %rsp
  ldmxcsr (%rsp)
  fldcw 4(%rsp)
  addq $8, %rsp
  popq %r15
  popq %r14
  popq %r13
  popq %r12
  popq %rbx
  popq %rbp
  ret
  .size tg_emu_switch, .-tg_emu_switch
  .popsection
)");
extern "C" void tg_emu_switch(void** save_sp, void* new_sp);
#endif

namespace tg::cuda::emu {

#if defined(__x86_64__)
void fiber_init(FiberContext& fiber, void* stack, size_t size, void (*entry)()) {
  // The frame tg_emu_switch pops (see above), with entry as its return address and a null
  // return address above that: at entry, rsp % 16 == 8, as after a call.
  auto top = reinterpret_cast<uintptr_t>(stack) + size;
  top &= ~uintptr_t{15};
  auto* slots = reinterpret_cast<uint64_t*>(top);
  slots[-1] = 0;                                  // entry's return address: none
  slots[-2] = reinterpret_cast<uint64_t>(entry);  // where tg_emu_switch returns to
  for (int i = 3; i <= 8; ++i) slots[-i] = 0;     // rbp, rbx, r12-r15
  uint32_t mxcsr = 0;
  uint16_t fpu_cw = 0;
  asm volatile("stmxcsr %0" : "=m"(mxcsr));
  asm volatile("fnstcw %0" : "=m"(fpu_cw));
  uint64_t control = 0;
  std::memcpy(&control, &mxcsr, 4);
  std::memcpy(reinterpret_cast<char*>(&control) + 4, &fpu_cw, 2);
  slots[-9] = control;
  fiber.sp = &slots[-9];
}

void fiber_switch(FiberContext& from, FiberContext& to) { tg_emu_switch(&from.sp, to.sp); }
#else
void fiber_init(FiberContext& fiber, void* stack, size_t size, void (*entry)()) {
  getcontext(&fiber.context);
  fiber.context.uc_stack.ss_sp = stack;
  fiber.context.uc_stack.ss_size = size;
  fiber.context.uc_link = nullptr;
  makecontext(&fiber.context, entry, 0);
}

void fiber_switch(FiberContext& from, FiberContext& to) { swapcontext(&from.context, &to.context); }
#endif

namespace {
size_t page_size() {
  static const size_t size = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  return size;
}
}  // namespace

StackPool::~StackPool() {
  for (size_t i = 0; i < free_count_; ++i) {
    munmap(static_cast<char*>(free_[i]) - page_size(), kStackBytes + page_size());
  }
  std::free(free_);
}

void* StackPool::take() {
  if (free_count_ > 0) return free_[--free_count_];
  void* mapping = mmap(nullptr, kStackBytes + page_size(), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) throw std::bad_alloc();
  mprotect(mapping, page_size(), PROT_NONE);  // a stack overflow faults instead of corrupting
  return static_cast<char*>(mapping) + page_size();
}

void StackPool::give_back(void* stack) {
  if (free_count_ == capacity_) {
    capacity_ = capacity_ == 0 ? 64 : capacity_ * 2;
    void** grown = static_cast<void**>(std::realloc(free_, capacity_ * sizeof(void*)));
    if (grown == nullptr) throw std::bad_alloc();
    free_ = grown;
  }
  free_[free_count_++] = stack;
}

}  // namespace tg::cuda::emu
