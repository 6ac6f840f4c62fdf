// tg::data: datasets, transforms, samplers and the data loader of the C++ frontend
// (docs/frontend-io.md), in LibTorch's names.
#pragma once

#include "data/dataloader.h"
#include "data/dataloader_options.h"
#include "data/dataset.h"
#include "data/example.h"
#include "data/idx.h"
#include "data/mnist.h"
#include "data/samplers.h"
#include "data/tensor_dataset.h"
#include "data/transforms.h"
