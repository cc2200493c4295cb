import ArgumentParser
import Glibc
import Tocsin
import TocsinBase
import TocsinCLI
import TocsinService

/// `tocsin`: countdowns and stopwatches from the shell.
@main
struct TocsinCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tocsin",
        abstract: "Countdowns and stopwatches in the terminal, with a desktop alert and sound at zero.",
        discussion: """
            EXAMPLES
              tocsin 25m "Tea is ready"      a 25-minute countdown with its label
              tocsin 90                      90 seconds (also 90s, 1h30m, 2.5m, 1.5h)
              tocsin 0:00:30                 H:MM:SS is a length (30 s; 1:30:00 is
                                               90 min), so is M:SS that cannot be a
                                               time of day (0:45, 25:00)
              tocsin until 14:30 Meeting     count down to a time of day (2:30pm,
                                               7am and 17:30 too; 5:00 alone could
                                               be either and is refused)
              tocsin every 'Mon..Fri 07:00' Wake -b   ring every weekday at 07:00
                                               (systemd's calendar syntax; the
                                               timer service keeps it)
              tocsin next '*-*-01 09:00' --count 3   when a calendar spec rings
              tocsin 25m:Work 5m:Break       one after another (a pomodoro);
                                               --repeat 4 for four rounds
              tocsin --parallel 3m:Eggs 8m:Rice   side by side, one line each
              tocsin 10m --exec 'notify-send done'  run a command at zero
              tocsin 5s --json | jq .        one JSON object per event, for scripts
              tocsin stopwatch               count up; l or Enter records a lap
              tocsin 25m Tea --state ~/.tea  keep the timer in a file, rewritten
                                               on every change;
              tocsin list --state ~/.tea       see it from another shell;
              tocsin resume --state ~/.tea     carry on after tocsin was killed
                                               or the machine restarted
              tocsin sw --state ~/.run       a stopwatch kept the same way
              tocsin doctor                  what the desktop offers, and whether
                                               the timer service can start
              tocsin 25m Tea -b              hand the timer to the timer service
                                               and return at once;
              tocsin ls                        list its timers (--json; rm
                                               --finished clears the done ones);
              tocsin pause Tea                 also resume, cancel, restart, rm,
                                               lap: by id, label or prefix;
              tocsin adjust Tea +5m            give it more time (or -2m less)
              tocsin snooze Wake 10m           ring again in 10 min (default:
                                               its --snooze, 5 min);
              tocsin skip Wake --count 2       its next two rings do not sound
                                               (--until 2026-12-27, --clear);
              tocsin export alarms.txt         its alarms as a text file, which
                                               tocsin import reads back
              tocsin log --since today --sum-by label   the time each
                                               label ran today, from the
                                               service's history (--csv)
              tocsin service                 the timer service itself, started
                                               by D-Bus activation (its API:
                                               share/doc/tocsin/dbus.md)

            KEYS (on a terminal)
              space  pause / resume     r  restart     q, Esc, Ctrl-C  cancel
              +  one more minute        -  one minute less (at a minute or
                                           less: finish now)

            Without a terminal nothing is shown but the final line (or, with
            --json, one JSON object per event: tick, state, finish, lap).

            EXIT STATUS
              0    finished
              1    anything else that went wrong (one line on stderr says what)
              2    bad usage
              130  cancelled by the user (q, Esc, Ctrl-C)
              143, 129  ended by SIGTERM, SIGHUP (logout, shutdown, a closed
                   terminal): with --state the timers run on in the file and
                   tocsin resume carries them on; without, they are cancelled
            """,
        version: "tocsin \(TimerEngine.version)",
        subcommands: [Countdown.self, Stopwatch.self, List.self, Resume.self, Doctor.self, Service.self, Ls.self,
                      Control<Pause>.self, Control<Cancel>.self, Control<Restart>.self, Control<Remove>.self,
                      Control<Lap>.self, Adjust.self, Snooze.self, Skip.self, Watch.self, Every.self, Next.self,
                      Export.self, Import.self, Log.self],
        defaultSubcommand: Countdown.self)

    /// Runs the command with the documented exit statuses: bad usage is one
    /// line on standard error and status 2 (not the parser's 64); a failure
    /// is one line and its status (1 unless it says otherwise).
    static func main() {
        // The user's language for what people read (po/); numbers stay C's
        // in every locale (JSON, status bars, the timer file, strtod).
        setlocale(LC_ALL, "")
        setlocale(LC_NUMERIC, "C")
        do {
            if let mistake = Countdown.misuse(Array(CommandLine.arguments.dropFirst())) {
                Descriptor.complain("tocsin: \(mistake)")
                exit(withError: ExitCode(ExitStatus.usage))
            }
            var command = try parseAsRoot()
            try command.run()
            exit()
        } catch let failure as CommandFailure {
            Descriptor.complain("tocsin: \(failure.message)")
            exit(withError: ExitCode(failure.status))
        } catch let failure as ServiceClient.Failure {
            Descriptor.complain("tocsin: \(failure.message)")
            exit(withError: ExitCode(ExitStatus.failure))
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            let message = message(for: error).split(separator: "\n").first.map(String.init) ?? "bad usage"
            Descriptor.complain("tocsin: \(message)")
            exit(withError: ExitCode(ExitStatus.usage))
        }
    }
}
