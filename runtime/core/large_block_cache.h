// Freed CPU blocks larger than the small-block cache's sizes are kept for reuse, process-wide,
// up to a byte limit. Why: glibc gives a freed large block's pages back to the system (mmap'd
// blocks at once, the heap top past its trim threshold), and the next tensor of that size
// faults every page in again and reads it from memory. A per-sample-gradient call wrote its
// 8 MiB result in 0.6 ms and spent 40% more on 2048 page faults; every large temporary of a
// training step paid the same. A kept block comes back with its pages mapped and, often, still
// in the cache. See Note [Large block cache] in large_block_cache.cpp.
//
// The limit is 512 MiB unless TG_CPU_BLOCK_CACHE_MB says otherwise (0 turns the cache off);
// past it the blocks released longest ago are freed first. Under AddressSanitizer nothing is
// kept, so a use after free is still reported. Blocks of 64 KiB and more start at one of 64
// offsets within a page, so that two tensors' rows do not share page offsets (Note [Block
// colours]); DataPtr::context() is then the start of the block.
#pragma once

#include <cstddef>

#include "core/allocator.h"

namespace tg::large_block_cache {

// A block of at least nbytes (nbytes > small_block_cache::kMaxBytes), aligned to
// kCpuAlignment, that returns to the cache (or to free) when the DataPtr lets it go. Throws
// tg::OutOfMemoryError, with the size asked for, when the system has no memory.
DataPtr allocate(size_t nbytes);

// Frees every kept block (what torch.cuda.empty_cache does for CUDA memory).
void empty_cache();

// Bytes held in kept blocks right now (counted in their classes' sizes: a block of 64 KiB
// and more also holds 4 KiB for its colour, Note [Block colours]), and the limit on them.
size_t cached_bytes();
size_t limit_bytes();
// Sets the limit (0: keep nothing); frees kept blocks, oldest first, down to it.
void set_limit_bytes(size_t bytes);

// The limit that TG_CPU_BLOCK_CACHE_MB's text asks for, in bytes (null: the default);
// tg::ValueError, naming the variable and the text, for anything but a whole number of MiB.
size_t parse_limit(const char* text);

// Whether freed blocks can be kept in this build (false under AddressSanitizer).
bool caching_enabled();

}  // namespace tg::large_block_cache
