//! Closures on the engine's thread while other threads start, cancel,
//! free and query timers: scripts/test-rust.sh runs it under
//! ThreadSanitizer (nightly), which must report no race.
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

fn main() -> Result<(), tocsin::Error> {
    let engine = Arc::new(tocsin::Engine::new()?);
    let fired = Arc::new(AtomicUsize::new(0));
    let finishes = Arc::new(AtomicUsize::new(0));
    let workers: Vec<_> = (0..4)
        .map(|worker| {
            let (engine, fired, finishes) = (Arc::clone(&engine), Arc::clone(&fired), Arc::clone(&finishes));
            std::thread::spawn(move || -> Result<(), tocsin::Error> {
                for i in 0..200 {
                    let timer = engine.countdown(0.0005 * f64::from(i % 7 + 1))?;
                    let (counter, finishes, me) = (Arc::clone(&fired), Arc::clone(&finishes), timer.clone());
                    timer.on_event(move |event| {
                        if event.kind == tocsin::EventKind::Finish {
                            counter.fetch_add(1, Ordering::SeqCst);
                            finishes.fetch_add(1, Ordering::SeqCst);
                            let _ = me.free(); // from its own closure
                        }
                    })?;
                    timer.start()?;
                    if i % 3 == worker % 3 {
                        let _ = timer.cancel();
                        let _ = timer.free();
                    }
                    let fired = Arc::clone(&fired);
                    engine.after(0.0003, move |_| {
                        fired.fetch_add(1, Ordering::SeqCst);
                    })?;
                }
                Ok(())
            })
        })
        .collect();
    for worker in workers {
        worker.join().expect("worker")?;
    }
    std::thread::sleep(std::time::Duration::from_millis(100));
    let count = fired.load(Ordering::SeqCst);
    println!(
        "threads: {count} closures ran, {} finishes logged",
        finishes.load(Ordering::SeqCst)
    );
    drop(engine);
    Ok(())
}
