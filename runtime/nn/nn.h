// tg::nn: LibTorch's C++ frontend (torch::nn) over tensorgen's operators: Module, holders,
// options, modules, nn::functional and nn::init. docs/porting.md lists what differs.
#pragma once

#include "nn/cloneable.h"
#include "frontend/expanding_array.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/module.h"
#include "nn/module_holder.h"
#include "nn/modules/activation.h"
#include "nn/modules/conv.h"
#include "nn/modules/dropout.h"
#include "nn/modules/embedding.h"
#include "nn/modules/functional_module.h"
#include "nn/modules/linear.h"
#include "nn/modules/loss.h"
#include "nn/modules/module_list.h"
#include "nn/modules/multihead_attention.h"
#include "nn/modules/normalization.h"
#include "nn/modules/pooling.h"
#include "nn/modules/sequential.h"
#include "nn/ordered_dict.h"
#include "nn/serialize.h"
