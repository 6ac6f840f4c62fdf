// IntrusivePtr<T>: a shared handle whose count lives in the object (T derives from RefCounted).
// Invariant: refcount_ == number of IntrusivePtrs to the object; at 0 the object is deleted.
// One pointer wide, no control block: the hot-path handle for tensors and storages.
#pragma once

#include <atomic>
#include <cstdint>
#include <utility>

#include "core/pooled_object.h"

namespace tg {

// Counted objects are made on every operation (a TensorImpl and a StorageImpl per result), so
// they are pooled (core/pooled_object.h); the virtual destructor gives operator delete the size.
class RefCounted : public PooledObject {
 public:
  RefCounted() = default;
  RefCounted(const RefCounted&) = delete;
  RefCounted& operator=(const RefCounted&) = delete;
  virtual ~RefCounted() = default;

  uint32_t use_count() const noexcept { return refcount_.load(std::memory_order_acquire); }

  // Manual counting, for handles that store raw pointers (IValue). Prefer IntrusivePtr.
  void retain() const noexcept { refcount_.fetch_add(1, std::memory_order_relaxed); }
  // Takes a reference only while the object is alive (the count is not yet zero): how a
  // holder of a plain pointer that the object clears in its destructor (a leaf's
  // AccumulateGrad) gets a strong reference without racing the last release.
  bool try_retain() const noexcept {
    uint32_t count = refcount_.load(std::memory_order_relaxed);
    while (count != 0) {
      if (refcount_.compare_exchange_weak(count, count + 1, std::memory_order_acquire, std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }
  void release() const noexcept {
    if (refcount_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }

 private:
  mutable std::atomic<uint32_t> refcount_{0};
};

template <typename T>
class IntrusivePtr {
 public:
  IntrusivePtr() noexcept = default;
  IntrusivePtr(std::nullptr_t) noexcept {}  // NOLINT
  // Takes a new reference to `target` (which may already be owned elsewhere).
  explicit IntrusivePtr(T* target) noexcept : target_(target) {
    if (target_) target_->retain();
  }
  IntrusivePtr(const IntrusivePtr& other) noexcept : IntrusivePtr(other.target_) {}
  IntrusivePtr(IntrusivePtr&& other) noexcept : target_(std::exchange(other.target_, nullptr)) {}
  template <typename U>
  IntrusivePtr(IntrusivePtr<U>&& other) noexcept : target_(other.release_ownership()) {}  // NOLINT
  ~IntrusivePtr() { reset(); }

  IntrusivePtr& operator=(const IntrusivePtr& other) noexcept {
    IntrusivePtr(other).swap(*this);
    return *this;
  }
  IntrusivePtr& operator=(IntrusivePtr&& other) noexcept {
    IntrusivePtr(std::move(other)).swap(*this);
    return *this;
  }

  template <typename... Args>
  static IntrusivePtr make(Args&&... args) {
    return IntrusivePtr(new T(std::forward<Args>(args)...));
  }

  // Adopts a pointer whose reference was already counted (see release_ownership).
  static IntrusivePtr reclaim(T* target) noexcept {
    IntrusivePtr p;
    p.target_ = target;
    return p;
  }
  // Gives up ownership without decrementing: the caller now holds one reference.
  T* release_ownership() noexcept { return std::exchange(target_, nullptr); }

  void reset() noexcept {
    if (target_) std::exchange(target_, nullptr)->release();
  }
  void swap(IntrusivePtr& other) noexcept { std::swap(target_, other.target_); }

  T* get() const noexcept { return target_; }
  T& operator*() const noexcept { return *target_; }
  T* operator->() const noexcept { return target_; }
  explicit operator bool() const noexcept { return target_ != nullptr; }
  uint32_t use_count() const noexcept { return target_ ? target_->use_count() : 0; }

  friend bool operator==(const IntrusivePtr& a, const IntrusivePtr& b) noexcept { return a.target_ == b.target_; }

 private:
  T* target_ = nullptr;
};

template <typename T, typename... Args>
IntrusivePtr<T> make_intrusive(Args&&... args) {
  return IntrusivePtr<T>::make(std::forward<Args>(args)...);
}

}  // namespace tg
