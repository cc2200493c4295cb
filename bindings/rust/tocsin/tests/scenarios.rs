//! The contract's scenarios (bindings/contract/scenarios, format in
//! bindings/contract/README.md) run through the safe crate, one count per
//! file, as the C and Python runners run them: each file on a fresh
//! `ManualEngine`, every step one call of the crate, every failure
//! `FILE:LINE: TEXT: what was expected, what came`.
//!
//! Through the crate all the way: a name whose making step failed holds
//! `engine.timer(TimerId(0))`, and after `new-engine` every name holds
//! `engine.timer(its old id)` on the new engine, so steps on them reach the
//! library as the C runner's do. One query goes to tocsin-sys:
//! `expect clock` on an alarm, where `Timer::clock` says `Clock::Wall` by
//! design and the contract asks for `tocsin_timer_clock`'s answer.
//!
//! A test without libtest (`harness = false` in Cargo.toml), so that each
//! file counts on its own: it prints `ok FILE` or `FAIL message` per file
//! and libtest's summary line, which scripts/test-rust.sh adds up. Words
//! after `--` pick files by part of their name (`cargo test --test
//! scenarios -- 13-save`); `TOCSIN_SCENARIOS=FOLDER` runs another folder's
//! files.

#[path = "scenario/expect.rs"]
mod expect;
#[path = "scenario/file.rs"]
mod file;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use tocsin::{Clock, Error, Event, ManualEngine, TickPolicy, Timer, TimerId};

use file::{number, read, Line, CLOCKS, POLICIES};

/// A name's timer (id 0 when its making step failed) and the events its
/// closure got since the last `expect events` of it.
struct Bound {
    timer: Timer,
    events: Arc<Mutex<Vec<Event>>>,
}

/// One file's run: the engine, the names, the last step's status and result.
pub struct Run {
    engine: ManualEngine,
    bound: HashMap<String, Bound>,
    /// The last step's error, `None` for OK.
    status: Option<Error>,
    result: f64,
    /// Every bound timer's events in the order the closures got them (`expect order`).
    order: Arc<Mutex<Vec<(String, Event)>>>,
    folder: PathBuf,
}

/// A status as the scenarios name it: `OK`, `EINVAL`, …
pub fn status_name(error: Option<&Error>) -> String {
    error.map_or_else(
        || "OK".to_string(),
        |e| e.name().trim_start_matches("TOCSIN_").to_string(),
    )
}

impl Run {
    fn new(folder: PathBuf) -> tocsin::Result<Run> {
        Ok(Run {
            engine: ManualEngine::new()?,
            bound: HashMap::new(),
            status: None,
            result: 0.0,
            order: Arc::new(Mutex::new(Vec::new())),
            folder,
        })
    }

    /// Binds `name` to `timer` with a closure for every event kind that
    /// records each event in the name's list and the engine-wide one.
    fn bind(&mut self, name: &str, timer: Timer) -> tocsin::Result<()> {
        let events = Arc::new(Mutex::new(Vec::new()));
        let (mine, order, who) = (Arc::clone(&events), Arc::clone(&self.order), name.to_string());
        timer.on_event(move |event| {
            mine.lock().unwrap().push(*event);
            order.lock().unwrap().push((who.clone(), *event));
        })?;
        self.bound.insert(name.to_string(), Bound { timer, events });
        Ok(())
    }

    /// Binds `name` to handle 0, which is never valid (a making step that failed).
    fn bind_nothing(&mut self, name: &str) {
        let timer = self.engine.timer(TimerId(0));
        let events = Arc::new(Mutex::new(Vec::new()));
        self.bound.insert(name.to_string(), Bound { timer, events });
    }

    fn step(&mut self, line: &Line) {
        let outcome = self.run_step(&line.tokens[0], &line.tokens[1..]);
        self.result = *outcome.as_ref().unwrap_or(&0.0);
        self.status = outcome.err();
    }

    fn run_step(&mut self, word: &str, args: &[String]) -> tocsin::Result<f64> {
        let name = args.first().map_or("", String::as_str);
        let value = args.get(1).map_or("", String::as_str);
        let seconds = || number(value).unwrap_or(f64::NAN); // checked when the file was read
        let made = match word {
            "countdown" => Some(self.engine.countdown(seconds())),
            "stopwatch" => Some(self.engine.stopwatch()),
            "alarm" => Some(self.engine.alarm(seconds())),
            "calendar" => Some(self.engine.calendar(value)),
            _ => None,
        };
        if let Some(made) = made {
            self.bind_nothing(name);
            self.bind(name, made?)?;
            return Ok(0.0);
        }
        let first = number(name).unwrap_or(f64::NAN);
        match word {
            "advance" => return self.engine.advance(first).map(|n| n as f64),
            "suspend-machine" => return self.engine.simulate_suspend(first).map(|n| n as f64),
            "set-wall-clock" => return self.engine.set_wall_clock(first).map(|n| n as f64),
            "save" => return self.engine.save(self.folder.join(name)).map(|_| 0.0),
            "load" => {
                for other in &args[1..] {
                    self.bind_nothing(other);
                }
                let restored = self.engine.load(self.folder.join(name))?;
                for (other, timer) in args[1..].iter().zip(restored.iter()) {
                    self.bind(other, timer.clone())?;
                }
                return Ok(restored.len() as f64);
            }
            "new-engine" => {
                self.engine = ManualEngine::new()?; // the old one is dropped: freed
                for bound in self.bound.values_mut() {
                    bound.timer = self.engine.timer(bound.timer.id()); // unknown to the new engine
                }
                return Ok(0.0);
            }
            _ => {}
        }
        let timer = &self.bound[name].timer;
        match word {
            "start" => timer.start().map(drop),
            "suspend" => timer.suspend().map(drop),
            "resume" => timer.resume().map(drop),
            "cancel" => timer.cancel().map(drop),
            "free" => timer.free(),
            "adjust" => timer.adjust(seconds()).map(drop),
            "tick" => timer.set_tick(seconds()).map(drop),
            "tick-policy" => {
                let policy = if value == POLICIES[0] {
                    TickPolicy::Every
                } else {
                    TickPolicy::Coalesce
                };
                timer.set_tick_policy(policy).map(drop)
            }
            "leeway" => timer.set_leeway(seconds()).map(drop),
            "clock" => timer
                .set_clock(if value == CLOCKS[0] { Clock::Boot } else { Clock::Awake })
                .map(drop),
            "label" => timer.set_label(value).map(drop),
            "lap" => return timer.lap(),
            // C's (unsigned)strtoul: a count past u32 wraps as there.
            "skip" => timer.skip(value.parse::<u64>().unwrap_or(u64::MAX) as u32).map(drop),
            "skip-until" => timer.skip_until(seconds()).map(drop),
            _ => unreachable!("a step the reader does not know: {word}"),
        }
        .map(|()| 0.0)
    }
}

/// Runs one file; `Err` is the report of its first failure.
fn run_scenario(path: &Path, folder: &Path) -> Result<(), String> {
    let lines = read(path)?;
    let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
    let mut run = Run::new(folder.to_path_buf()).map_err(|error| format!("{name}: cannot make an engine: {error}"))?;
    for line in &lines {
        let at = format!("{name}:{}: {}", line.number, line.text);
        if !line.is_expect {
            run.step(line);
            if !line.error_checked {
                if let Some(error) = &run.status {
                    return Err(format!(
                        "{at}: failed with {} (no 'expect error' follows): {error}",
                        status_name(Some(error))
                    ));
                }
            }
            let names = line.tokens.len().saturating_sub(2);
            if run.status.is_none() && line.tokens[0] == "load" && run.result != names as f64 {
                return Err(format!("{at}: restored {} timers for {names} names", run.result));
            }
        } else if let Some(problem) = expect::expectation(&run, line) {
            return Err(format!("{at}: {problem}"));
        }
    }
    Ok(())
}

/// A temporary folder of its own for one file's `save` and `load`.
fn temporary_folder(index: usize) -> PathBuf {
    let folder = std::env::temp_dir().join(format!("tocsin-scenario-rust-{}-{index}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a temporary folder");
    folder
}

/// Broken files: each must fail with its file and line, before any step.
fn broken_files_fail_with_their_line(folder: &Path) -> Result<(), String> {
    let cases: [(&[u8], &str); 6] = [
        (
            b"countdown t 10\nstart t\nexpect state t runing\n",
            "bad.scenario:3: parse error: 'runing' is not valid here",
        ),
        (
            b"countdown t 10\nlabel t \"open\n",
            "bad.scenario:2: parse error: a quoted string is not closed",
        ),
        (
            b"start nobody\n",
            "bad.scenario:1: parse error: no timer named 'nobody'",
        ),
        (
            b"expect error OK\n",
            "bad.scenario:1: parse error: 'expect error' before any step",
        ),
        (
            b"countdown t 10\nexpect events t finish:3\n",
            "bad.scenario:2: parse error: 'finish:3' is not an EVENT",
        ),
        (b"\xff\n", "bad.scenario: "),
    ];
    let path = folder.join("bad.scenario");
    for (text, wanted) in cases.iter() {
        std::fs::write(&path, text).map_err(|error| error.to_string())?;
        match run_scenario(&path, folder) {
            Err(message) if message.starts_with(wanted) => {}
            Err(message) => return Err(format!("expected a failure starting {wanted:?}, got {message:?}")),
            Ok(()) => return Err(format!("expected a failure starting {wanted:?}, it passed")),
        }
    }
    Ok(())
}

fn main() {
    // libtest's options are taken and ignored, with the value of those that have one.
    let (mut filters, mut args) = (Vec::new(), std::env::args().skip(1));
    let mut list = false;
    while let Some(arg) = args.next() {
        if ["--test-threads", "--skip", "--format", "--color", "--logfile", "-Z"].contains(&arg.as_str()) {
            args.next();
        } else if arg == "--list" {
            list = true;
        } else if !arg.starts_with('-') {
            filters.push(arg);
        }
    }
    // TOCSIN_SCENARIOS: another folder (test-rust.sh's copy for Rust 1.63 has no ../../contract).
    let folder = match std::env::var_os("TOCSIN_SCENARIOS") {
        Some(folder) => PathBuf::from(folder),
        None => Path::new(env!("CARGO_MANIFEST_DIR")).join("../../contract/scenarios"),
    };
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&folder) {
        Ok(entries) => entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| path.extension().map_or(false, |e| e == "scenario"))
            .collect(),
        Err(error) => {
            println!("FAIL {}: {error}", folder.display());
            println!("\ntest result: FAILED. 0 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out\n");
            std::process::exit(101);
        }
    };
    paths.sort(); // the byte order of the names
    if list {
        for path in &paths {
            println!("{}: test", path.file_name().unwrap_or_default().to_string_lossy());
        }
        return;
    }
    let mut outcomes = Vec::new(); // per file: Ok, or its failure
    let mut filtered = 0;
    for (index, path) in paths.iter().enumerate() {
        let name = path.file_name().unwrap_or_default().to_string_lossy().into_owned();
        if !filters.is_empty() && !filters.iter().any(|filter| name.contains(filter.as_str())) {
            filtered += 1;
            continue;
        }
        let temporary = temporary_folder(index);
        let outcome = run_scenario(path, &temporary);
        let _ = std::fs::remove_dir_all(&temporary);
        match &outcome {
            Ok(()) => println!("ok   {name}"),
            Err(message) => println!("FAIL {message}"),
        }
        outcomes.push(outcome);
    }
    let files_failed = outcomes.iter().filter(|outcome| outcome.is_err()).count();
    println!(
        "scenarios (Rust): {} passed, {files_failed} failed",
        outcomes.len() - files_failed
    );
    if filters.is_empty() {
        // The runner itself: broken files fail with their line; the folder holds the files.
        let temporary = temporary_folder(paths.len());
        let outcome = if paths.len() < 12 {
            Err(format!("only {} scenario files in {}", paths.len(), folder.display()))
        } else {
            broken_files_fail_with_their_line(&temporary)
        };
        let _ = std::fs::remove_dir_all(&temporary);
        match &outcome {
            Ok(()) => println!("ok   the runner: broken files fail with their file and line"),
            Err(message) => println!("FAIL the runner: {message}"),
        }
        outcomes.push(outcome);
    }
    let failed = outcomes.iter().filter(|outcome| outcome.is_err()).count();
    let passed = outcomes.len() - failed;
    let verdict = if failed == 0 { "ok" } else { "FAILED" };
    println!(
        "\ntest result: {verdict}. {passed} passed; {failed} failed; 0 ignored; 0 measured; {filtered} filtered out\n"
    );
    std::process::exit(if failed == 0 { 0 } else { 101 });
}
