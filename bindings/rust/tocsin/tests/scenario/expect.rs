//! The expectations of a scenario (bindings/contract/README.md) checked
//! through the safe crate's queries: each gives `None`, or what was
//! expected and what came. scenarios.rs runs the steps.

use tocsin::{Clock, Event, EventKind, State, Timer};

use crate::file::{event, number, same, Line, CLOCKS, STATES};
use crate::Run;

/// A stopwatch's remaining and duration: `None` in Rust, -1 in C.
fn seconds(value: Option<f64>) -> f64 {
    value.unwrap_or(-1.0)
}

fn state_index(state: State) -> usize {
    match state {
        State::Idle => 0,
        State::Running => 1,
        State::Suspended => 2,
        State::Finished => 3,
        State::Canceled => 4,
    }
}

/// An event as an EVENT token with every field: `tick:2,elapsed=2,…`.
fn shown(got: &Event) -> String {
    let head = match got.kind {
        EventKind::Tick => format!("tick:{}", got.tick),
        EventKind::State => format!("state:{}", STATES[state_index(got.state)]),
        EventKind::Finish => "finish".to_string(),
    };
    format!(
        "{head},elapsed={},remaining={},lateness={},missed={}",
        got.elapsed,
        seconds(got.remaining),
        got.lateness,
        got.missed
    )
}

fn matches(got: &Event, token: &str) -> bool {
    let wanted = match event(token) {
        Ok(wanted) => wanted,
        Err(_) => return false, // checked when the file was read
    };
    let kind = match got.kind {
        EventKind::Tick => 1,
        EventKind::State => 2,
        EventKind::Finish => 3,
    };
    if kind != wanted.kind {
        return false;
    }
    let detail = if kind == 1 {
        got.tick as f64
    } else {
        state_index(got.state) as f64
    };
    if wanted.detail.map_or(false, |want| !same(detail, want)) {
        return false;
    }
    wanted.fields.iter().all(|(name, want)| {
        let value = match name.as_str() {
            "elapsed" => got.elapsed,
            "remaining" => seconds(got.remaining),
            "lateness" => got.lateness,
            "missed" => got.missed as f64,
            _ => got.tick as f64,
        };
        same(value, *want)
    })
}

fn counted(events: &[String]) -> String {
    let plural = if events.len() == 1 { "" } else { "s" };
    let list = if events.is_empty() {
        "none".to_string()
    } else {
        events.join(" ")
    };
    format!("got {} event{plural}: {list}", events.len())
}

fn expect_events(run: &Run, line: &Line) -> Option<String> {
    let bound = &run.bound[&line.tokens[2]];
    let got: Vec<Event> = std::mem::take(&mut *bound.events.lock().unwrap());
    let wanted = &line.tokens[3..];
    if got.len() == wanted.len() && got.iter().zip(wanted).all(|(one, token)| matches(one, token)) {
        return None;
    }
    Some(counted(&got.iter().map(shown).collect::<Vec<_>>()))
}

fn expect_order(run: &Run, line: &Line) -> Option<String> {
    let got: Vec<(String, Event)> = std::mem::take(&mut *run.order.lock().unwrap());
    let wanted = &line.tokens[2..];
    let all = got.len() == wanted.len()
        && got
            .iter()
            .zip(wanted)
            .all(|((name, one), token)| match token.split_once('/') {
                Some((want_name, rest)) => name == want_name && matches(one, rest),
                None => false,
            });
    if all {
        return None;
    }
    Some(counted(
        &got.iter()
            .map(|(name, one)| format!("{name}/{}", shown(one)))
            .collect::<Vec<_>>(),
    ))
}

fn compare(got: f64, expected: &str) -> Option<String> {
    let want = number(expected).unwrap_or(f64::NAN);
    if same(got, want) {
        None
    } else {
        Some(format!("expected {want}, got {got}"))
    }
}

fn text(got: String, expected: &str) -> Option<String> {
    if got == expected {
        None
    } else {
        Some(format!("expected \"{expected}\", got \"{got}\""))
    }
}

/// A timer's value through the safe crate's query, compared.
fn timer_query(run: &Run, timer: &Timer, what: &str, args: &[String]) -> tocsin::Result<Option<String>> {
    let want = args.get(1).map_or("", String::as_str);
    Ok(match what {
        "state" => {
            let got = STATES[state_index(timer.state()?)];
            (got != want).then(|| format!("expected {want}, got {got}"))
        }
        "clock" => {
            let got = match timer.clock()? {
                Clock::Boot => CLOCKS[0].to_string(),
                Clock::Awake => CLOCKS[1].to_string(),
                // The safe crate says Wall for an alarm; the contract's
                // `expect clock` is tocsin_timer_clock's answer, which the
                // crate has no other call for.
                Clock::Wall => {
                    // SAFETY: the engine's pointer is valid while run.engine lives; any id is checked.
                    let value = unsafe { tocsin::sys::tocsin_timer_clock(run.engine.as_ptr(), timer.as_raw()) };
                    CLOCKS
                        .get(value as usize)
                        .map_or_else(|| value.to_string(), |c| c.to_string())
                }
            };
            (got != want).then(|| format!("expected {want}, got {got}"))
        }
        "elapsed" => compare(timer.elapsed()?, want),
        "remaining" => compare(seconds(timer.remaining()?), want),
        "duration" => compare(seconds(timer.duration()?), want),
        "leeway" => compare(timer.leeway()?, want),
        "alarm-time" => compare(timer.alarm_time()?, want),
        "label" => text(timer.label()?, want),
        "calendar" => text(timer.calendar_spec()?, want),
        "skipped-until" => match (timer.skipped_until()?, want) {
            (None, "none") => None,
            (Some(got), "none") => Some(format!("expected none, got {got}")),
            (None, _) => Some(format!("expected {want}, got none")),
            (Some(got), _) => compare(got, want),
        },
        _ => {
            // laps
            let laps = timer.laps()?;
            let wanted = &args[1..];
            let ok = laps.len() == wanted.len() && laps.iter().zip(wanted).all(|(lap, w)| compare(*lap, w).is_none());
            let list: Vec<String> = laps.iter().map(|lap| lap.to_string()).collect();
            let shown = if list.is_empty() {
                "none".to_string()
            } else {
                list.join(" ")
            };
            (!ok).then(|| format!("got {} laps: {shown}", laps.len()))
        }
    })
}

/// `None` if the expectation holds, else what was expected and what came.
pub fn expectation(run: &Run, line: &Line) -> Option<String> {
    let (what, args) = (line.tokens[1].as_str(), &line.tokens[2..]);
    let engine_query = |value: tocsin::Result<f64>| match value {
        Ok(got) => compare(got, &args[0]),
        Err(error) => Some(format!("the query failed with {}", crate::status_name(Some(&error)))),
    };
    match what {
        "error" => {
            let got = crate::status_name(run.status.as_ref());
            (got != args[0]).then(|| format!("expected {}, got {got}", args[0]))
        }
        "result" => compare(run.result, &args[0]),
        "now" => engine_query(run.engine.now()),
        "wall-clock" => engine_query(run.engine.wall_clock()),
        "timers" => engine_query(run.engine.timers().map(|timers| timers.len() as f64)),
        "events" => expect_events(run, line),
        "order" => expect_order(run, line),
        _ => match timer_query(run, &run.bound[&args[0]].timer, what, args) {
            Ok(problem) => problem,
            Err(error) => Some(format!("the query failed with {}", crate::status_name(Some(&error)))),
        },
    }
}
