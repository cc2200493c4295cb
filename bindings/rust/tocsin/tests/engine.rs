//! The safe crate against the library: the three modes, every kind of
//! timer, and misuse giving Err.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use tocsin::{Clock, Engine, Error, EventKind, EventMask, State, TickPolicy};

#[test]
fn manual_countdown_finishes_with_its_events_in_order() {
    let engine = Engine::manual_clock().unwrap();
    let tea = engine.countdown(3).unwrap();
    tea.set_tick(1).unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&seen);
    tea.on_event(move |event| {
        log.lock()
            .unwrap()
            .push((event.kind, event.state, event.tick, event.elapsed))
    })
    .unwrap();
    tea.start().unwrap();
    assert_eq!(engine.advance(3).unwrap(), 5);
    let seen = seen.lock().unwrap().clone();
    assert_eq!(
        seen,
        vec![
            (EventKind::State, State::Running, 0, 0.0),
            (EventKind::Tick, State::Running, 1, 1.0),
            (EventKind::Tick, State::Running, 2, 2.0),
            (EventKind::Finish, State::Running, 0, 3.0),
            (EventKind::State, State::Finished, 0, 3.0),
        ]
        .into_iter()
        .map(|(k, s, t, e)| (k, if k == EventKind::Finish { State::Finished } else { s }, t, e))
        .collect::<Vec<_>>()
    );
}

#[test]
fn boot_and_awake_countdowns_through_a_simulated_suspend() {
    let engine = Engine::manual_clock().unwrap();
    let boot = engine.countdown(600).unwrap();
    let awake = engine.countdown(600).unwrap();
    awake.set_clock(Clock::Awake).unwrap();
    assert_eq!(boot.clock().unwrap(), Clock::Boot);
    assert_eq!(awake.clock().unwrap(), Clock::Awake);
    boot.start().unwrap();
    awake.start().unwrap();
    engine.advance(100).unwrap();
    engine.simulate_suspend(1000).unwrap();
    assert_eq!(boot.state().unwrap(), State::Finished);
    assert_eq!(awake.remaining().unwrap(), Some(500.0));
    assert_eq!(engine.now().unwrap(), 1100.0);
    let mut finish = None;
    let (sender, receiver) = mpsc::channel();
    awake.on_event(move |event| sender.send(*event).unwrap()).unwrap();
    engine.advance(500).unwrap();
    while let Ok(event) = receiver.try_recv() {
        if event.kind == EventKind::Finish {
            finish = Some(event);
        }
    }
    assert_eq!(finish.unwrap().elapsed, 600.0);
    assert!(awake.set_clock(Clock::Wall).is_err());
}

#[test]
fn polled_engine_on_poll() {
    use std::os::unix::io::{AsFd, AsRawFd};
    let engine = Engine::polled().unwrap();
    assert_eq!(engine.as_fd().as_raw_fd(), engine.as_raw_fd());
    let count = Arc::new(AtomicUsize::new(0));
    for i in 1..=3 {
        let count = Arc::clone(&count);
        engine
            .after(0.005 * f64::from(i), move |_| {
                count.fetch_add(1, Ordering::SeqCst);
            })
            .unwrap();
    }
    while count.load(Ordering::SeqCst) < 3 {
        engine.wait_and_dispatch(Some(Duration::from_secs(5))).unwrap();
    }
    assert_eq!(engine.timers().unwrap().len(), 0, "after() frees its timer at FINISH");
    let timer = engine.countdown(0.01).unwrap();
    let mut events = timer.event_stream().unwrap();
    timer.start().unwrap();
    let kinds: Vec<_> = events.by_ref().take(3).map(|e| e.kind).collect();
    assert_eq!(kinds, vec![EventKind::State, EventKind::Finish, EventKind::State]);
}

#[test]
fn calendar_alarm_with_a_skip_on_the_manual_wall_clock() {
    let engine = Engine::manual_clock().unwrap();
    engine.set_wall_clock(1_800_000_000).unwrap(); // Fri 2027-01-15 08:00 UTC
    let alarm = engine.calendar("Mon..Fri 09:30 UTC").unwrap();
    assert_eq!(alarm.clock().unwrap(), Clock::Wall);
    assert_eq!(alarm.calendar_spec().unwrap(), "Mon..Fri *-*-* 09:30:00 UTC");
    let rings = Arc::new(Mutex::new(Vec::new()));
    let log = Arc::clone(&rings);
    alarm.set_events(EventMask::FINISH).unwrap();
    alarm
        .on_event(move |event| log.lock().unwrap().push(event.missed))
        .unwrap();
    alarm.start().unwrap();
    alarm.skip(1).unwrap();
    assert!(alarm.skipped_until().unwrap().is_some());
    engine.advance(86_400.0 * 3.0).unwrap(); // to Monday 08:00: Friday's skipped
    assert!(rings.lock().unwrap().is_empty());
    engine.advance(5400).unwrap(); // Monday 09:30
    assert_eq!(*rings.lock().unwrap(), vec![0]);
    assert_eq!(alarm.state().unwrap(), State::Running);
    assert!(matches!(engine.calendar("Mun 07:00"), Err(Error::InvalidArgument(m)) if m.contains("column 1")));
    assert!(matches!(engine.calendar("2020-01-01"), Err(Error::NoOccurrence(_))));
    assert_eq!(
        tocsin::calendar_check("Mon..Fri 07:00").unwrap(),
        "Mon..Fri *-*-* 07:00:00"
    );
}

#[test]
fn alarm_follows_the_wall_clock() {
    let engine = Engine::manual_clock().unwrap();
    engine.set_wall_clock(1000).unwrap();
    let alarm = engine.alarm(5000).unwrap();
    alarm.start().unwrap();
    assert_eq!(alarm.remaining().unwrap(), Some(4000.0));
    engine.set_wall_clock(6000).unwrap();
    assert_eq!(alarm.state().unwrap(), State::Finished);
    assert!(engine.alarm(f64::NAN).is_err());
}

#[test]
fn misuse_gives_err_never_a_crash() {
    let engine = Engine::manual_clock().unwrap();
    for bad in [f64::NAN, -1.0, 0.0, f64::INFINITY, 1e300] {
        assert!(matches!(engine.countdown(bad), Err(Error::InvalidArgument(_))), "{bad}");
    }
    assert!(engine.advance(f64::NAN).is_err());
    assert!(engine.advance(-5).is_err());
    let timer = engine.countdown(10).unwrap();
    assert!(matches!(
        timer.set_label(&"x".repeat(5000)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(timer.set_label("a\0b"), Err(Error::InvalidArgument(_))));
    timer.set_label("Tea").unwrap();
    assert_eq!(timer.label().unwrap(), "Tea");
    assert!(matches!(timer.resume(), Err(Error::WrongState(m)) if m.contains("Tea has not started")));
    assert!(timer.set_tick(f64::NAN).is_err());
    assert!(timer.set_leeway(-1).is_err());
    assert!(timer.adjust(f64::NAN).is_err());
    assert!(timer.skip(1).is_err(), "not a calendar alarm");
    timer.free().unwrap();
    assert!(matches!(timer.start(), Err(Error::NoSuchTimer(_))));
    assert!(matches!(timer.state(), Err(Error::NoSuchTimer(_))));
    assert!(matches!(timer.free(), Err(Error::NoSuchTimer(_))));
    assert!(timer.on_event(|_| ()).is_err());
    let error = engine.countdown(f64::NAN).unwrap_err();
    assert_eq!(error.code(), -1);
    assert_eq!(error.name(), "TOCSIN_EINVAL");
    assert!(error.to_string().contains("got NaN"), "{error}");
    let other = Engine::manual_clock().unwrap();
    let foreign = other.countdown(1).unwrap();
    assert!(matches!(engine.timer(foreign.id()).start(), Err(Error::NoSuchTimer(_))));
    let kept = other.countdown(1).unwrap();
    drop(other);
    assert!(matches!(kept.start(), Err(Error::Closed(_))));
}

#[test]
fn stopwatch_laps_adjust_leeway_and_policy() {
    let engine = Engine::manual_clock().unwrap();
    let watch = engine.stopwatch().unwrap();
    watch.start().unwrap();
    engine.advance(1.5).unwrap();
    assert_eq!(watch.lap().unwrap(), 1.5);
    engine.advance(2).unwrap();
    assert_eq!(watch.lap().unwrap(), 2.0);
    assert_eq!(watch.laps().unwrap(), vec![1.5, 2.0]);
    assert_eq!(watch.remaining().unwrap(), None);
    assert!(watch.adjust(5).is_err());
    let countdown = engine.countdown(60).unwrap();
    countdown
        .set_leeway(0.5)
        .unwrap()
        .set_tick_policy(TickPolicy::Coalesce)
        .unwrap();
    assert_eq!(countdown.leeway().unwrap(), 0.5);
    countdown.start().unwrap();
    countdown.adjust(30).unwrap();
    assert_eq!(countdown.remaining().unwrap(), Some(90.0));
    countdown.suspend().unwrap();
    engine.advance(100).unwrap();
    assert_eq!(countdown.state().unwrap(), State::Suspended);
    countdown.resume().unwrap();
    countdown.cancel().unwrap();
    assert!(countdown.cancel().is_err());
    assert!(!countdown.wake().unwrap());
    countdown.set_wake(true).unwrap();
    assert!(countdown.wake().unwrap());
    assert!(watch.set_wake(true).is_err());
}

#[test]
fn save_and_restore() {
    let path = std::env::temp_dir().join(format!("tocsin-rust-test-{}.json", std::process::id()));
    let engine = Engine::manual_clock().unwrap();
    let tea = engine.countdown(300).unwrap();
    tea.set_label("Tea").unwrap();
    tea.start().unwrap();
    engine.advance(100).unwrap();
    engine.save(&path).unwrap();
    let other = Engine::manual_clock().unwrap();
    let restored = other.load(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(restored.len(), 1);
    assert_eq!(restored[0].label().unwrap(), "Tea");
    assert_eq!(restored[0].state().unwrap(), State::Running);
    match other.load("/nonexistent/tocsin.json") {
        Err(Error::Io(_, os)) => assert_eq!(os.kind(), std::io::ErrorKind::NotFound),
        other => panic!("{other:?}"),
    }
}

#[test]
fn threaded_closures_call_back_into_the_engine() {
    let engine = Engine::new().unwrap();
    let (sender, receiver) = mpsc::channel();
    let timer = engine.countdown(0.01).unwrap();
    let me = timer.clone();
    timer
        .on_event(move |event| {
            if event.kind == EventKind::Finish {
                // Everything from inside the closure: no deadlock.
                assert_eq!(me.state().unwrap(), State::Finished);
                me.free().unwrap();
                sender.send(event.timer).unwrap();
            }
        })
        .unwrap();
    timer.start().unwrap();
    assert_eq!(receiver.recv_timeout(Duration::from_secs(10)).unwrap(), timer.id());
    assert!(matches!(timer.state(), Err(Error::NoSuchTimer(_))));
    let waited = engine.countdown(0.01).unwrap();
    waited.start().unwrap();
    assert_eq!(waited.wait().unwrap().kind, EventKind::Finish);
}

#[test]
fn blocking_event_iterator_ends_when_the_engine_goes() {
    let engine = Engine::new().unwrap();
    let events = engine.events().unwrap();
    let reader = std::thread::spawn(move || events.map(|event| event.kind).collect::<Vec<_>>());
    let mut mine = engine.events().unwrap();
    let timer = engine.countdown(0.01).unwrap();
    timer.start().unwrap();
    // Until the run's last event, STATE(FINISHED), has been delivered.
    assert!(mine.any(|event| event.kind == EventKind::State && event.state == State::Finished));
    drop(engine);
    let kinds = reader.join().unwrap();
    assert_eq!(kinds, vec![EventKind::State, EventKind::Finish, EventKind::State]);
}

#[test]
fn a_panicking_closure_does_not_stop_delivery() {
    let engine = Engine::manual_clock().unwrap();
    let first = engine.countdown(1).unwrap();
    first.on_event(|_| panic!("on purpose")).unwrap();
    let second = engine.countdown(1).unwrap();
    let count = Arc::new(AtomicUsize::new(0));
    let seen = Arc::clone(&count);
    second
        .on_event(move |_| {
            seen.fetch_add(1, Ordering::SeqCst);
        })
        .unwrap();
    first.start().unwrap();
    second.start().unwrap();
    engine.advance(1).unwrap();
    assert_eq!(count.load(Ordering::SeqCst), 3);
}

#[test]
fn dropping_an_engine_with_armed_timers_and_closures() {
    for _ in 0..20 {
        let engine = Engine::new().unwrap();
        let mut kept = Vec::new();
        for i in 0..50 {
            let timer = engine.countdown(1000 + i).unwrap();
            let held = timer.clone();
            timer.on_event(move |_| drop(held.state())).unwrap(); // a cycle the drop breaks
            timer.start().unwrap();
            kept.push(timer);
        }
        engine.after(0.001, |_| ()).unwrap();
        drop(engine);
        assert!(matches!(kept[0].state(), Err(Error::Closed(_))));
    }
}

#[cfg(feature = "tokio")]
mod with_tokio {
    use tocsin::tokio::AsyncEngine;
    use tocsin::{EventKind, State};

    #[tokio::test]
    async fn finished_and_next_event_on_an_async_engine() {
        let engine = AsyncEngine::new().unwrap();
        let first = engine.countdown(0.01).unwrap();
        let second = engine.countdown(0.02).unwrap();
        first.start().unwrap();
        second.start().unwrap();
        let finish = second.finished().await.unwrap();
        assert_eq!(finish.timer, second.id());
        assert_eq!(first.state().unwrap(), State::Finished);
        let third = engine.countdown(0.01).unwrap();
        third.start().unwrap();
        let mut kinds = Vec::new();
        while kinds.len() < 2 {
            let event = engine.next_event().await.unwrap();
            kinds.push(event.kind);
        }
        assert_eq!(kinds, vec![EventKind::Finish, EventKind::State]);
        let cancelled = engine.countdown(10).unwrap();
        cancelled.start().unwrap();
        let waiting = cancelled.finished();
        tokio::pin!(waiting);
        // Polled once, so that it listens before the cancel (not a guessed sleep).
        tokio::select! {
            biased;
            _ = &mut waiting => panic!("finished before the cancel"),
            _ = std::future::ready(()) => {}
        }
        cancelled.cancel().unwrap();
        assert!(waiting.await.is_err());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn finished_on_a_threaded_engine() {
        let engine = tocsin::Engine::new().unwrap();
        let timer = engine.countdown(0.01).unwrap();
        timer.start().unwrap();
        assert_eq!(timer.finished().await.unwrap().kind, EventKind::Finish);
        assert!(AsyncEngine::new().is_ok());
    }

    #[test]
    fn outside_a_runtime_is_an_error() {
        assert!(matches!(AsyncEngine::new(), Err(tocsin::Error::Unavailable(_))));
    }
}

#[cfg(feature = "notify")]
mod with_notify {
    use tocsin::notify::{Alert, Notifier};
    use tocsin::Error;

    #[test]
    fn bad_alerts_and_stale_timers_are_errors() {
        let reports = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let log = std::sync::Arc::clone(&reports);
        let notifier = Notifier::with_reports(move |report| log.lock().unwrap().push(report.kind)).unwrap();
        let engine = tocsin::Engine::manual_clock().unwrap();
        let timer = engine.countdown(60).unwrap();
        notifier.attach(&timer, &Alert::default()).unwrap();
        notifier.detach(&timer).unwrap();
        assert!(matches!(notifier.detach(&timer), Err(Error::NoSuchTimer(_))));
        let nan = Alert {
            repeat_seconds: f64::NAN,
            ..Alert::default()
        };
        assert!(matches!(notifier.attach(&timer, &nan), Err(Error::InvalidArgument(_))));
        let nul = Alert {
            body: Some("a\0b".into()),
            ..Alert::default()
        };
        assert!(matches!(notifier.attach(&timer, &nul), Err(Error::InvalidArgument(_))));
        assert!(notifier.set_live_limit(5000).is_err());
        timer.free().unwrap();
        assert!(matches!(
            notifier.attach(&timer, &Alert::default()),
            Err(Error::NoSuchTimer(_))
        ));
        let other = engine.countdown(1).unwrap();
        notifier.attach(&other, &Alert::default()).unwrap();
        drop(engine); // the notifier keeps the engine's memory until it is dropped
        drop(notifier);
    }
}

#[test]
fn closures_make_timers_and_drop_their_own_engine() {
    let engine = Engine::new().unwrap();
    let timer = engine.countdown(0.005).unwrap();
    let (sender, receiver) = mpsc::channel();
    let owner = Arc::new(Mutex::new(Some(engine)));
    let held = Arc::clone(&owner);
    timer
        .on_event(move |event| {
            if event.kind != EventKind::Finish {
                return;
            }
            let engine = held.lock().unwrap().take().expect("the engine");
            // From inside a closure on the engine's thread: new timers, a
            // one-shot, a query; then the engine dropped from its own closure.
            let other = engine.countdown(60).unwrap();
            other.start().unwrap();
            engine.after(60, |_| ()).unwrap();
            assert_eq!(engine.timers().unwrap().len(), 3);
            drop(engine);
            assert!(matches!(other.state(), Err(Error::Closed(_))));
            sender.send(()).unwrap();
        })
        .unwrap();
    timer.start().unwrap();
    receiver.recv_timeout(Duration::from_secs(10)).unwrap();
    assert!(owner.lock().unwrap().is_none());
    assert!(matches!(timer.start(), Err(Error::Closed(_))));
}
