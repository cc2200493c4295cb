//! `timers N`: N one-shot timers with deadlines spread over [0.5 s, 2.5 s]
//! (seeded), all fired, on this crate's engine (`Engine::after`, closures
//! on the engine's thread) and on tokio (`tokio::time::sleep` in a spawned
//! task, a current-thread runtime). Prints one line per engine for
//! bench/rust.sh: "NAME arm_ns_per_timer late_p50_us late_p99_us
//! late_max_us fired_early cpu_ms". Lateness is measured alike for both:
//! `Instant::now()` when the timer's code runs, less the instant before it
//! was armed plus its delay.
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

fn delays(count: usize) -> Vec<Duration> {
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    (0..count)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            Duration::from_nanos(500_000_000 + state % 2_000_000_000)
        })
        .collect()
}

#[repr(C)]
struct Timespec {
    seconds: i64,
    nanoseconds: i64,
}

extern "C" {
    fn clock_gettime(clock: i32, out: *mut Timespec) -> i32;
}

/// CPU time of the whole process (every thread), in ms.
fn cpu_ms() -> f64 {
    let mut now = Timespec {
        seconds: 0,
        nanoseconds: 0,
    };
    // SAFETY: CLOCK_PROCESS_CPUTIME_ID (2) and a valid out-pointer.
    unsafe { clock_gettime(2, &mut now) };
    now.seconds as f64 * 1e3 + now.nanoseconds as f64 / 1e6
}

fn report(name: &str, arm: Duration, count: usize, late_ns: &mut [i64], cpu: f64) {
    late_ns.sort_unstable();
    let early = late_ns.iter().filter(|&&late| late < 0).count();
    let at = |q: f64| late_ns[((late_ns.len() - 1) as f64 * q) as usize] as f64 / 1e3;
    println!(
        "{name} {:.1} {:.1} {:.1} {:.1} {early} {:.1}",
        arm.as_nanos() as f64 / count as f64,
        at(0.5),
        at(0.99),
        at(1.0),
        cpu
    );
}

fn tocsin(delays: &[Duration]) -> Result<(), tocsin::Error> {
    let count = delays.len();
    let engine = tocsin::Engine::new()?;
    let origin = Instant::now();
    let fired: Arc<Vec<AtomicU64>> = Arc::new((0..count).map(|_| AtomicU64::new(0)).collect());
    let done = Arc::new(AtomicUsize::new(0));
    let mut due = Vec::with_capacity(count);
    let cpu = cpu_ms();
    let began = Instant::now();
    for (i, delay) in delays.iter().enumerate() {
        due.push(Instant::now() + *delay);
        let (fired, done) = (Arc::clone(&fired), Arc::clone(&done));
        engine.after(*delay, move |_| {
            fired[i].store(origin.elapsed().as_nanos() as u64, Ordering::Relaxed);
            done.fetch_add(1, Ordering::Release);
        })?;
    }
    let arm = began.elapsed();
    while done.load(Ordering::Acquire) < count {
        std::thread::sleep(Duration::from_millis(5));
    }
    let cpu = cpu_ms() - cpu;
    let mut late: Vec<i64> = (0..count)
        .map(|i| fired[i].load(Ordering::Relaxed) as i64 - due[i].duration_since(origin).as_nanos() as i64)
        .collect();
    report("tocsin", arm, count, &mut late, cpu);
    Ok(())
}

fn tokio_sleep(delays: &[Duration]) {
    let count = delays.len();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .build()
        .expect("runtime");
    let origin = Instant::now();
    let (late, arm, cpu) = runtime.block_on(async {
        let cpu = cpu_ms();
        let began = Instant::now();
        let mut tasks = Vec::with_capacity(count);
        let mut due = Vec::with_capacity(count);
        for delay in delays {
            due.push(Instant::now() + *delay);
            let sleep = tokio::time::sleep(*delay);
            tasks.push(tokio::spawn(async move {
                sleep.await;
                origin.elapsed().as_nanos() as u64
            }));
        }
        let arm = began.elapsed();
        let mut late = Vec::with_capacity(count);
        for (task, due) in tasks.into_iter().zip(due) {
            let fired = task.await.expect("task");
            late.push(fired as i64 - due.duration_since(origin).as_nanos() as i64);
        }
        (late, arm, cpu_ms() - cpu)
    });
    let mut late = late;
    report("tokio", arm, count, &mut late, cpu);
}

fn main() -> Result<(), tocsin::Error> {
    let count: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(10_000);
    let delays = delays(count);
    tocsin(&delays)?;
    tokio_sleep(&delays);
    Ok(())
}
