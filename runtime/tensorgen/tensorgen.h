// The one header a tensorgen user includes: #include <tensorgen/tensorgen.h>
#pragma once

#include "autograd/autograd.h"
#include "autograd/grad_mode.h"
#include "core/allocator.h"
#include "core/cuda_availability.h"
#include "core/device.h"
#include "core/error.h"
#include "core/generator.h"
#include "core/ivalue.h"
#include "core/parallel.h"
#include "core/scalar.h"
#include "core/scalar_type.h"
#include "core/tensor.h"
#include "core/tensor_options.h"
#include "dispatch/dispatcher.h"
#include "dispatch/library.h"
#include "dispatch/schema_parser.h"
#include "tensorgen/ops.h"
// Forward-mode AD and the function transforms (h19).
#include "autograd/forward_ad.h"
#include "functorch/transforms.h"
