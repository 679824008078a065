// SPDX-License-Identifier: Apache-2.0
#pragma once
// Everything in the csp layer (channels and first-class events). Prefer the
// single headers in weft/csp/ in libraries; this one is for applications.
#include <weft/csp/bridge.hpp>
#include <weft/csp/cancel.hpp>
#include <weft/csp/channel.hpp>
#include <weft/csp/choose.hpp>
#include <weft/csp/connect.hpp>
#include <weft/csp/event.hpp>
#include <weft/csp/guard.hpp>
#include <weft/csp/recv.hpp>
#include <weft/csp/send.hpp>
#include <weft/csp/timeout.hpp>
#include <weft/csp/window.hpp>
#include <weft/csp/wrap.hpp>
