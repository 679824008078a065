// SPDX-License-Identifier: Apache-2.0
// The translation unit that carries the tests' precompiled header
// (tests/CMakeLists.txt, weft_test_pch); it has no code of its own.
