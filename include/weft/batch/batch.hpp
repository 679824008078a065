// SPDX-License-Identifier: Apache-2.0
#pragma once
// All of weft/batch: the interleaver, its policies, the kernels and the tuner.
#include <weft/batch/autotune.hpp>
#include <weft/batch/interleave.hpp>
#include <weft/batch/kernels/bptree.hpp>
#include <weft/batch/kernels/conv3x3.hpp>
#include <weft/batch/kernels/image.hpp>
#include <weft/batch/kernels/normalise.hpp>
#include <weft/batch/kernels/svm.hpp>
#include <weft/batch/lane.hpp>
#include <weft/batch/numeric.hpp>
#include <weft/batch/prefetch.hpp>
