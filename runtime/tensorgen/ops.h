// The operator API generated from schemas/, plus the hand-written pieces that sit on it.
#pragma once

#include "Functions.h"
#include "RedispatchFunctions.h"
#include "TensorMethods.h"
#include "ops/print.h"
#include "ops/scalar_tensor.h"
#include "ops/tensor_from_values.h"
#include "ops/tensor_operators.h"
