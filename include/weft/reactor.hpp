// SPDX-License-Identifier: Apache-2.0
#pragma once
// Everything in the reactor layer (deterministic, timed reactors with
// Lingua Franca semantics). See docs/reactor.md.
#include <weft/reactor/action.hpp>
#include <weft/reactor/connection.hpp>
#include <weft/reactor/deadline.hpp>
#include <weft/reactor/environment.hpp>
#include <weft/reactor/mode.hpp>
#include <weft/reactor/port.hpp>
#include <weft/reactor/reaction.hpp>
#include <weft/reactor/reactor.hpp>
#include <weft/reactor/tag.hpp>
#include <weft/reactor/timer.hpp>
#include <weft/reactor/worker.hpp>
