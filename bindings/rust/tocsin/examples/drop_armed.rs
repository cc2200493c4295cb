//! Drops engines with armed timers, closures, a one-shot, an event
//! iterator and handles still held: scripts/test-rust.sh runs it under
//! valgrind's memcheck, which must find no leak of the binding's.
fn main() -> Result<(), tocsin::Error> {
    for round in 0..3 {
        let engine = tocsin::Engine::new()?;
        let events = engine.events()?;
        let mut kept = Vec::new();
        for i in 0..100 {
            let timer = engine.countdown(1000 + i)?;
            timer.set_label(&format!("timer {i}"))?;
            let held = timer.clone(); // a closure holding its own timer
            timer.on_event(move |_| drop(held.state()))?;
            timer.start()?;
            kept.push(timer);
        }
        engine.after(3600, |_| ())?;
        let polled = tocsin::Engine::polled()?;
        polled.countdown(60)?.start()?;
        let manual = tocsin::Engine::manual_clock()?;
        manual.stopwatch()?.start()?;
        drop((engine, polled, manual));
        drop(events);
        assert!(kept[0].state().is_err());
        println!("round {round}: dropped");
    }
    Ok(())
}
