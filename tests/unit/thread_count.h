// Sets tensorgen's thread count for one scope and puts the previous count back.
#pragma once

#include <tensorgen/tensorgen.h>

struct ThreadCount {
  int saved = tg::get_num_threads();
  explicit ThreadCount(int n) { tg::set_num_threads(n); }
  ~ThreadCount() { tg::set_num_threads(saved); }
  ThreadCount(const ThreadCount&) = delete;
  ThreadCount& operator=(const ThreadCount&) = delete;
};
