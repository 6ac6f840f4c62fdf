// tg::nn::functional: the stateless forms of the modules, with LibTorch's options structs.
// Users write `namespace F = tg::nn::functional;` as with LibTorch.
#pragma once

#include "nn/functional/activation.h"
#include "nn/functional/batch_norm.h"
#include "nn/functional/conv.h"
#include "nn/functional/conv_transpose.h"
#include "nn/functional/dropout.h"
#include "nn/functional/embedding.h"
#include "nn/functional/feature_dropout.h"
#include "nn/functional/linear.h"
#include "nn/functional/loss.h"
#include "nn/functional/normalization.h"
#include "nn/functional/pooling.h"
#include "nn/functional/resampling.h"
