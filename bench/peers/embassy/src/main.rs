// SPDX-License-Identifier: Apache-2.0
//! Peer: the csp workloads on embassy-executor (arch-std, executor-thread:
//! one thread) with embassy-sync channels. The work mirrors
//! bench/csp/workloads.hpp and peer_workloads.hpp (same sizes, messages,
//! floating-point work and checksums); the output is the same JSON lines.
//!
//! Differences forced by embassy, also stated in docs/csp.md:
//! - embassy-sync has no rendezvous channel: where weft and the other peers
//!   use one (pingpong_rendezvous, choose_8, ThreadRing) this uses a
//!   capacity-1 channel. Same messages; a sender may run one value ahead.
//! - channels use NoopRawMutex (the cheapest; everything runs on one thread).
//! - Executor::run never returns, so the bench task exits the process.

use core::cell::Cell;
use std::io::Write;
use std::time::Instant;

use embassy_executor::{Executor, Spawner};
use embassy_futures::select::select_array;
use embassy_sync::blocking_mutex::raw::NoopRawMutex;
use embassy_sync::channel::Channel;

type M = NoopRawMutex;

#[derive(Clone, Copy, Default)]
struct Msg {
    kind: u32,
    from: u32,
    value: i64,
}
const K_PING: u32 = 1;
const K_PONG: u32 = 2;
const K_STOP: u32 = 3;
const K_INCR: u32 = 4;
const K_QUERY: u32 = 5;
const K_MEET: u32 = 6;
const K_CHANGE: u32 = 7;
const K_EXIT: u32 = 8;
const K_DONE: u32 = 9;
const fn msg(kind: u32, from: u32, value: i64) -> Msg {
    Msg { kind, from, value }
}

/// Sizes of one run (bench/csp/workloads.hpp: `full` and `quick`).
#[derive(Clone, Copy)]
struct Sizes {
    pingpong_msgs: i64,
    buffered_msgs: i64,
    choose_msgs: i64,
    savina_pings: i64,
    counting_n: i64,
    ring_nodes: usize,
    ring_hops: i64,
    throughput_actors: usize,
    throughput_per: i64,
    chameneos: usize,
    meetings: i64,
    big_workers: usize,
    big_pings: i64,
}
const FULL: Sizes = Sizes {
    pingpong_msgs: 40_000, buffered_msgs: 1_000_000, choose_msgs: 200_000, savina_pings: 40_000,
    counting_n: 1_000_000, ring_nodes: 100, ring_hops: 20_000, throughput_actors: 60,
    throughput_per: 10_000, chameneos: 100, meetings: 20_000, big_workers: 120, big_pings: 500,
};
const QUICK: Sizes = Sizes {
    pingpong_msgs: 10_000, buffered_msgs: 200_000, choose_msgs: 40_000, savina_pings: 10_000,
    counting_n: 200_000, ring_nodes: 100, ring_hops: 5_000, throughput_actors: 60,
    throughput_per: 2_000, chameneos: 100, meetings: 5_000, big_workers: 120, big_pings: 100,
};
const BUFFERED: usize = 64;
const FANIN: usize = 8;
const MAX: usize = 128;

fn throughput_work(i: i64) -> f64 {
    let s = (37.2 + (i % 64) as f64 * 0.001).sin();
    s * s
}
fn fp_checksum(total: f64) -> u64 {
    (total * 1000.0).round() as u64
}
fn complement(a: u32, b: u32) -> u32 {
    if a == b { a } else { 3 - a - b }
}
struct PartnerRng(u64);
impl PartnerRng {
    fn new(worker: usize) -> Self {
        PartnerRng(0x9e3779b97f4a7c15u64.wrapping_mul(worker as u64 + 1))
    }
    fn next(&mut self, me: usize, workers: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        let p = (self.0 % (workers as u64 - 1)) as usize;
        if p >= me { p + 1 } else { p }
    }
}
fn sum_to(n: i64) -> u64 {
    (n as u64) * (n as u64 + 1) / 2
}

/// Every channel of every workload, allocated once and reused (each run
/// drains what it uses).
struct Ctx {
    done: Channel<M, u64, 256>,
    ping: Channel<M, i64, 1>,
    pong: Channel<M, i64, 1>,
    buf: Channel<M, i64, BUFFERED>,
    fan: [Channel<M, i64, 1>; FANIN],
    sp_ping: Channel<M, Msg, 1>,
    sp_pong: Channel<M, Msg, 1>,
    count_box: Channel<M, Msg, BUFFERED>,
    count_reply: Channel<M, Msg, 1>,
    ring: [Channel<M, i64, 1>; MAX],
    tp: [Channel<M, Msg, BUFFERED>; 64],
    tp_sum: [Cell<f64>; 64],
    mall: Channel<M, Msg, MAX>,
    creature: [Channel<M, Msg, 1>; MAX],
    big: [Channel<M, Msg, { MAX + 1 }>; MAX],
    sink: Channel<M, Msg, MAX>,
}
type C = &'static Ctx;

// --- pingpong_rendezvous
#[embassy_executor::task]
async fn pp_ping(c: C, n: i64) {
    let mut sum = 0u64;
    for i in 1..=n {
        c.ping.send(i).await;
        sum += c.pong.receive().await as u64;
    }
    c.done.send(sum).await;
}
#[embassy_executor::task]
async fn pp_pong(c: C, n: i64) {
    for _ in 0..n {
        let v = c.ping.receive().await;
        c.pong.send(v).await;
    }
    c.done.send(0).await;
}

// --- throughput_buffered
#[embassy_executor::task]
async fn producer(c: C, n: i64) {
    for i in 0..n {
        c.buf.send(i).await;
    }
    c.done.send(0).await;
}
#[embassy_executor::task]
async fn consumer(c: C, n: i64) {
    let mut sum = 0u64;
    for _ in 0..n {
        sum += c.buf.receive().await as u64;
    }
    c.done.send(sum).await;
}

// --- choose_8
#[embassy_executor::task(pool_size = 8)]
async fn fan_producer(c: C, k: usize, n: i64) {
    for i in 0..n {
        c.fan[k].send(k as i64 + i * FANIN as i64).await;
    }
    c.done.send(0).await;
}
#[embassy_executor::task]
async fn fan_consumer(c: C, n: i64) {
    let mut sum = 0u64;
    for _ in 0..n {
        let f = &c.fan;
        let (v, _) = select_array([
            f[0].receive(), f[1].receive(), f[2].receive(), f[3].receive(),
            f[4].receive(), f[5].receive(), f[6].receive(), f[7].receive(),
        ])
        .await;
        sum += v as u64;
    }
    c.done.send(sum).await;
}

// --- Savina PingPong
#[embassy_executor::task]
async fn sp_ping(c: C, n: i64) {
    let mut sum = 0u64;
    for i in 1..=n {
        c.sp_pong.send(msg(K_PING, 0, i)).await;
        sum += c.sp_ping.receive().await.value as u64;
    }
    c.sp_pong.send(msg(K_STOP, 0, 0)).await;
    c.done.send(sum).await;
}
#[embassy_executor::task]
async fn sp_pong(c: C) {
    loop {
        let m = c.sp_pong.receive().await;
        if m.kind == K_STOP {
            break;
        }
        c.sp_ping.send(msg(K_PONG, 1, m.value)).await;
    }
    c.done.send(0).await;
}

// --- Savina Counting
#[embassy_executor::task]
async fn counter(c: C) {
    let mut count = 0i64;
    loop {
        let m = c.count_box.receive().await;
        if m.kind == K_INCR {
            count += 1;
            continue;
        }
        c.count_reply.send(msg(K_DONE, 0, count)).await;
        break;
    }
    c.done.send(0).await;
}
#[embassy_executor::task]
async fn counting_producer(c: C, n: i64) {
    for _ in 0..n {
        c.count_box.send(msg(K_INCR, 0, 1)).await;
    }
    c.count_box.send(msg(K_QUERY, 0, 0)).await;
    let r = c.count_reply.receive().await.value as u64;
    c.done.send(r).await;
}

// --- Savina ThreadRing
#[embassy_executor::task(pool_size = 128)]
async fn ring_node(c: C, k: usize, n: usize) {
    let next = &c.ring[(k + 1) % n];
    let mut sum = 0u64;
    loop {
        let t = c.ring[k].receive().await;
        if t > 0 {
            sum += k as u64;
            next.send(t - 1).await;
            continue;
        }
        let origin = if t == 0 { k as i64 } else { -t - 1 };
        if ((k + 1) % n) as i64 != origin {
            next.send(if t == 0 { -(k as i64 + 1) } else { t }).await;
        }
        break;
    }
    c.done.send(sum).await;
}
#[embassy_executor::task]
async fn ring_start(c: C, hops: i64) {
    c.ring[0].send(hops).await;
    c.done.send(0).await;
}

// --- Savina Throughput
#[embassy_executor::task]
async fn tp_producer(c: C, actors: usize, per: i64) {
    for i in 0..per {
        for a in 0..actors {
            c.tp[a].send(msg(0, 0, i * actors as i64 + a as i64)).await;
        }
    }
    c.done.send(0).await;
}
#[embassy_executor::task(pool_size = 64)]
async fn tp_consumer(c: C, a: usize, per: i64) {
    let mut s = 0.0f64;
    for _ in 0..per {
        s += throughput_work(c.tp[a].receive().await.value);
    }
    c.tp_sum[a].set(s);
    c.done.send(0).await;
}

// --- Savina Chameneos
#[embassy_executor::task(pool_size = 128)]
async fn creature(c: C, i: usize) {
    let mut colour = (i % 3) as u32;
    let mut met = 0i64;
    loop {
        c.mall.send(msg(K_MEET, i as u32, colour as i64)).await;
        let m = c.creature[i].receive().await;
        if m.kind == K_EXIT {
            break;
        }
        met += 1;
        if m.kind == K_MEET {
            colour = complement(colour, m.value as u32);
            c.creature[m.from as usize].send(msg(K_CHANGE, i as u32, colour as i64)).await;
        } else {
            colour = m.value as u32;
        }
    }
    c.mall.send(msg(K_DONE, i as u32, met)).await;
    c.done.send(0).await;
}
#[embassy_executor::task]
async fn mall(c: C, creatures: usize, meetings: i64) {
    let (mut held, mut waiting, mut done, mut sum) = (0i64, -1i64, 0usize, 0u64);
    while done < creatures {
        let m = c.mall.receive().await;
        if m.kind == K_DONE {
            sum += m.value as u64;
            done += 1;
            continue;
        }
        if held == meetings {
            c.creature[m.from as usize].send(msg(K_EXIT, 0, 0)).await;
            if waiting >= 0 {
                c.creature[waiting as usize].send(msg(K_EXIT, 0, 0)).await;
            }
            waiting = -1;
        } else if waiting < 0 {
            waiting = m.from as i64;
        } else {
            c.creature[waiting as usize].send(msg(K_MEET, m.from, m.value)).await;
            waiting = -1;
            held += 1;
        }
    }
    c.done.send(sum).await;
}

// --- Savina Big
#[embassy_executor::task(pool_size = 128)]
async fn big_worker(c: C, me: usize, workers: usize, pings: i64) {
    let mut rng = PartnerRng::new(me);
    let mut sent = 1i64;
    let mut pongs = 0i64;
    c.big[rng.next(me, workers)].send(msg(K_PING, me as u32, 0)).await;
    loop {
        let m = c.big[me].receive().await;
        if m.kind == K_PING {
            c.big[m.from as usize].send(msg(K_PONG, me as u32, 0)).await;
        } else if m.kind == K_PONG {
            pongs += 1;
            if sent < pings {
                sent += 1;
                c.big[rng.next(me, workers)].send(msg(K_PING, me as u32, 0)).await;
            } else {
                c.sink.send(msg(K_DONE, me as u32, pongs)).await;
            }
        } else {
            break;
        }
    }
    c.done.send(0).await;
}
#[embassy_executor::task]
async fn big_sink(c: C, workers: usize) {
    let mut sum = 0u64;
    for _ in 0..workers {
        sum += c.sink.receive().await.value as u64;
    }
    for i in 0..workers {
        c.big[i].send(msg(K_EXIT, 0, 0)).await;
    }
    c.done.send(sum).await;
}

/// Spawns one run's tasks, waits for every one of them to report, returns
/// the checksum (the sum of what they report).
async fn run_once(c: C, sp: Spawner, w: &str, z: &Sizes) -> u64 {
    let tasks = match w {
        "pingpong_rendezvous" => {
            sp.must_spawn(pp_ping(c, z.pingpong_msgs / 2));
            sp.must_spawn(pp_pong(c, z.pingpong_msgs / 2));
            2
        }
        "throughput_buffered" => {
            sp.must_spawn(producer(c, z.buffered_msgs));
            sp.must_spawn(consumer(c, z.buffered_msgs));
            2
        }
        "choose_8" => {
            let per = z.choose_msgs / FANIN as i64;
            for k in 0..FANIN {
                sp.must_spawn(fan_producer(c, k, per));
            }
            sp.must_spawn(fan_consumer(c, per * FANIN as i64));
            FANIN + 1
        }
        "savina_pingpong" => {
            sp.must_spawn(sp_ping(c, z.savina_pings));
            sp.must_spawn(sp_pong(c));
            2
        }
        "savina_counting" => {
            sp.must_spawn(counter(c));
            sp.must_spawn(counting_producer(c, z.counting_n));
            2
        }
        "savina_threadring" => {
            for k in 0..z.ring_nodes {
                sp.must_spawn(ring_node(c, k, z.ring_nodes));
            }
            sp.must_spawn(ring_start(c, z.ring_hops));
            z.ring_nodes + 1
        }
        "savina_throughput" => {
            for a in 0..z.throughput_actors {
                sp.must_spawn(tp_consumer(c, a, z.throughput_per));
            }
            sp.must_spawn(tp_producer(c, z.throughput_actors, z.throughput_per));
            z.throughput_actors + 1
        }
        "savina_chameneos" => {
            sp.must_spawn(mall(c, z.chameneos, z.meetings));
            for i in 0..z.chameneos {
                sp.must_spawn(creature(c, i));
            }
            z.chameneos + 1
        }
        "savina_big" => {
            for i in 0..z.big_workers {
                sp.must_spawn(big_worker(c, i, z.big_workers, z.big_pings));
            }
            sp.must_spawn(big_sink(c, z.big_workers));
            z.big_workers + 1
        }
        _ => unreachable!(),
    };
    let mut sum = 0u64;
    for _ in 0..tasks {
        sum += c.done.receive().await;
    }
    if w == "savina_throughput" {
        // Consumers' sums, added in index order as the other systems do.
        let total: f64 = (0..z.throughput_actors).map(|a| c.tp_sum[a].get()).sum();
        sum = fp_checksum(total);
    }
    sum
}

/// (workload, op, ops per run, expected checksum)
fn workloads(z: &Sizes) -> Vec<(&'static str, &'static str, i64, u64)> {
    let ring: u64 = (0..z.ring_hops).map(|h| (h % z.ring_nodes as i64) as u64).sum();
    let mut tp = 0.0f64;
    for a in 0..z.throughput_actors {
        let mut s = 0.0f64;
        for i in 0..z.throughput_per {
            s += throughput_work(i * z.throughput_actors as i64 + a as i64);
        }
        tp += s;
    }
    vec![
        ("pingpong_rendezvous", "msg", z.pingpong_msgs, sum_to(z.pingpong_msgs / 2)),
        ("throughput_buffered", "msg", z.buffered_msgs, sum_to(z.buffered_msgs - 1)),
        ("choose_8", "msg", z.choose_msgs, sum_to(z.choose_msgs - 1)),
        ("savina_pingpong", "msg", 2 * z.savina_pings, sum_to(z.savina_pings)),
        ("savina_counting", "msg", z.counting_n, z.counting_n as u64),
        ("savina_threadring", "hop", z.ring_hops, ring),
        ("savina_throughput", "msg", z.throughput_actors as i64 * z.throughput_per, fp_checksum(tp)),
        ("savina_chameneos", "meeting", z.meetings, 2 * z.meetings as u64),
        ("savina_big", "msg", 2 * z.big_workers as i64 * z.big_pings, z.big_workers as u64 * z.big_pings as u64),
    ]
}

#[embassy_executor::task]
async fn bench_main(sp: Spawner, c: C, quick: bool, only: Option<String>) {
    let z = if quick { QUICK } else { FULL };
    let runs = if quick { 7 } else { 21 };
    let mut failed = false;
    for (w, op, ops, expected) in workloads(&z) {
        if only.as_deref().is_some_and(|o| o != w) {
            continue;
        }
        eprintln!("  {:<20} {:<12} ...", w, "embassy");
        let mut got = run_once(c, sp, w, &z).await; // warm-up
        let mut valid = got == expected;
        let mut v = Vec::with_capacity(runs);
        for _ in 0..runs {
            let t0 = Instant::now();
            let s = run_once(c, sp, w, &z).await;
            v.push(t0.elapsed().as_nanos() as f64 / ops as f64);
            valid &= s == expected;
            got = s;
        }
        if !valid {
            eprintln!("  {}/embassy: checksum {}, expected {}", w, got, expected);
            failed = true;
        }
        v.sort_by(|a, b| a.partial_cmp(b).unwrap());
        // Linear interpolation between ranks, as bench/csp/common.hpp and
        // bench/common/harness.hpp do (rounding to the nearest rank gave
        // other p10/p90 than the C++ systems' with the quick run count).
        let at = |q: f64| {
            let idx = q * (v.len() - 1) as f64;
            let lo = idx as usize;
            let hi = (lo + 1).min(v.len() - 1);
            v[lo] + (v[hi] - v[lo]) * (idx - lo as f64)
        };
        println!(
            "{{\"suite\":\"csp\",\"workload\":\"{}\",\"system\":\"embassy\",\"target\":\"host-x86_64\",\
             \"unit\":\"ns/op\",\"op\":\"{}\",\"median\":{:.2},\"p10\":{:.2},\"p90\":{:.2},\"runs\":{},\
             \"ops_per_run\":{},\"checksum\":{},\"valid\":{}}}",
            w, op, at(0.5), at(0.1), at(0.9), runs, ops, got, valid
        );
        std::io::stdout().flush().unwrap();
    }
    // A run that did not do the work fails the invocation (bench/csp/run).
    std::process::exit(if failed { 1 } else { 0 });
}

fn main() {
    let mut quick = false;
    let mut only = None;
    for a in std::env::args().skip(1) {
        if a == "--quick" { quick = true } else { only = Some(a) }
    }
    let ctx: C = Box::leak(Box::new(Ctx {
        done: Channel::new(),
        ping: Channel::new(),
        pong: Channel::new(),
        buf: Channel::new(),
        fan: [const { Channel::new() }; FANIN],
        sp_ping: Channel::new(),
        sp_pong: Channel::new(),
        count_box: Channel::new(),
        count_reply: Channel::new(),
        ring: [const { Channel::new() }; MAX],
        tp: [const { Channel::new() }; 64],
        tp_sum: [const { Cell::new(0.0) }; 64],
        mall: Channel::new(),
        creature: [const { Channel::new() }; MAX],
        big: [const { Channel::new() }; MAX],
        sink: Channel::new(),
    }));
    let executor: &'static mut Executor = Box::leak(Box::new(Executor::new()));
    executor.run(|sp| sp.must_spawn(bench_main(sp, ctx, quick, only)));
}
