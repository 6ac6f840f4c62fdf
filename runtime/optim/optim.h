// tg::optim: the optimizers, learning-rate schedulers and gradient clipping of the C++
// frontend (docs/frontend-io.md), in LibTorch's names.
#pragma once

#include "optim/adagrad.h"
#include "optim/adam.h"
#include "optim/adamw.h"
#include "optim/clip_grad.h"
#include "optim/lr_scheduler.h"
#include "optim/optimizer.h"
#include "optim/rmsprop.h"
#include "optim/sgd.h"
