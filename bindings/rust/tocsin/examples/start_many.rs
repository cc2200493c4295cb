//! `start_many N`: N countdowns made and started on a polled engine, as
//! `engine.countdown(s)?.start()?`: bench/rust.sh counts the instructions
//! per timer with callgrind (two runs, N = 1000 and 3000, subtracted),
//! beside bench/rust_start.c doing the same with the bare C calls.
fn main() -> Result<(), tocsin::Error> {
    let count: usize = std::env::args().nth(1).and_then(|n| n.parse().ok()).unwrap_or(1000);
    let engine = tocsin::Engine::polled()?;
    for i in 0..count {
        // Far deadlines, as bench/instructions.c: nothing falls due.
        let timer = engine.countdown(3600.0 + i as f64 * 1e-3)?;
        timer.start()?;
        // Kept in no Vec, as the C side keeps no array: an allocation of
        // the harness's own moves where the library's tables grow, and the
        // memcpy of their growth with it. Dropping the handle is counted.
        drop(timer);
    }
    // Not freed: only making and starting is counted (the C side exits
    // without freeing too).
    std::mem::forget(engine);
    Ok(())
}
