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
    // An engine dropped from inside its own closure: torn down when the
    // closure returns.
    let engine = tocsin::Engine::new()?;
    engine.countdown(500)?.start()?;
    let timer = engine.countdown(0.001)?;
    let owner = std::sync::Arc::new(std::sync::Mutex::new(Some(engine)));
    let (held, (done, finished)) = (std::sync::Arc::clone(&owner), std::sync::mpsc::channel());
    timer.on_event(move |event| {
        if event.kind == tocsin::EventKind::Finish {
            drop(held.lock().unwrap().take());
            done.send(()).unwrap();
        }
    })?;
    timer.start()?;
    finished.recv().unwrap();
    // That engine's thread tears it down and exits on its own (detached:
    // nobody can join it); give it the moment, or valgrind sees its
    // thread's TLS "possibly lost" at the exit of a process it outlived.
    std::thread::sleep(std::time::Duration::from_millis(200));
    println!("dropped from its own closure");
    Ok(())
}
