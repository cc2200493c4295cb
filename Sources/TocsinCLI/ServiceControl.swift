import Tocsin
import TocsinBase
package import TocsinService

/// The command as the timer service's client: what `-b`, `ls`, the
/// controls and `doctor` do, over a `ServiceClient`.
package enum ServiceControl {
    /// Connects to the session bus. `starting`: to start a timer in the
    /// background (`-b`), which the foreground can run instead.
    ///
    /// - Throws: a failure that says what needs the bus.
    package static func connect(starting: Bool = false) throws(CommandFailure) -> ServiceClient {
        do throws(ServiceClient.Failure) {
            return try ServiceClient()
        } catch {
            guard starting else {  // (ls, the controls, import: nothing to run in the foreground)
                throw CommandFailure(tr("{error}: the timer service and its timers are on the session's bus", ["error": error.message]))
            }
            throw CommandFailure(tr("{error}: background timers need the session's bus; run in the foreground without -b", ["error": error.message]))
        }
    }

    /// `tocsin sw LABEL -b`: a stopwatch in the service; its line.
    package static func startStopwatch(label: String, awake: Bool, on client: ServiceClient) throws(ServiceClient.Failure) -> String {
        var options: [(String, ServiceValue)] = [("kind", .text("stopwatch"))]
        if awake { options.append(("clock", .text("awake"))) }
        let id = try client.add(label: label, seconds: 0, options: options)
        return tr("{label}: id {id}, stopwatch running (tocsin lap {id}, tocsin ls)", ["label": label, "id": String(id)])
    }

    /// `method` (Pause, Resume, Cancel, Restart, Remove, Lap, Adjust with
    /// `delta` seconds) on each timer `words` names, in order; a lap's
    /// line is said. Every word is resolved first: if one names no timer
    /// (or several), nothing is changed. If the service refuses one after
    /// others were changed, the failure says which were and which were not
    /// tried.
    package static func control(_ method: String, _ words: [String], delta: Double? = nil, on client: ServiceClient,
                                say: (String) -> Void) throws {
        let timers = try client.list()
        var ids: [UInt64] = []
        var unknown: [String] = []
        for word in words {
            do throws(CommandFailure) {
                ids.append(try ServiceTimers.resolve(word, in: timers))
            } catch where error.status == ExitStatus.usage {
                throw CommandFailure(tr("{error}; nothing was changed", ["error": error.message]), status: error.status)
            } catch {
                unknown.append(word)
            }
        }
        if !unknown.isEmpty {
            let names = unknown.joined(separator: ", ")
            throw CommandFailure(tr("{error}; nothing was changed", ["error": tr("no timer {name} (tocsin ls lists them)", ["name": names])]))
        }
        for (index, id) in ids.enumerated() {
            let lap: Double?
            do throws(ServiceClient.Failure) {
                lap = try client.control(method, id, delta: delta)
            } catch {
                guard index > 0 else { throw error }
                let done = words[..<index].joined(separator: ", ")
                let rest = words[(index + 1)...].joined(separator: ", ")
                throw CommandFailure(rest.isEmpty ? tr("{error} (done: {done})", ["error": error.message, "done": done])
                                     : tr("{error} (done: {done}; not tried: {rest})", ["error": error.message, "done": done, "rest": rest]))
            }
            if method == "Lap", let lap {
                say(tr("{label}: lap {time}", ["label": ServiceTimers.label(of: id, in: timers),
                                               "time": Display.stopwatch(nanoseconds: Nanos.saturating(seconds: lap))]))
            }
        }
    }

    /// `tocsin rm --finished`: removes every timer that is over; its line.
    package static func removeFinished(on client: ServiceClient) throws(ServiceClient.Failure) -> String {
        let over = try client.list().filter(\.isOver)
        for timer in over { try client.control("Remove", timer.id) }
        return over.isEmpty ? tr("No timer is over") : tr("Removed {count}: {timers}", [
            "count": String(over.count), "timers": over.map { $0.label.isEmpty ? String($0.id) : $0.label }.joined(separator: ", ")])
    }

    /// `tocsin rm --owner APP`: removes every timer app `APP` made; its line.
    package static func remove(ownedBy app: String, on client: ServiceClient) throws(ServiceClient.Failure) -> String {
        let made = try client.list().filter { $0.owner == app }
        for timer in made { try client.control("Remove", timer.id) }
        return made.isEmpty ? tr("{app} has no timer", ["app": app]) : tr("Removed {count} of {app}: {timers}", [
            "count": String(made.count), "app": app, "timers": made.map { $0.label.isEmpty ? String($0.id) : $0.label }.joined(separator: ", ")])
    }

    /// The service's timers as `tocsin watch` shows them; nil if the
    /// service cannot be reached.
    package static func watched(on client: ServiceClient) -> [WatchRunner.Watched]? {
        (try? client.list())?.map { timer in
            WatchRunner.Watched(
                id: timer.id, label: timer.label, state: timer.state,
                remaining: timer.remaining, duration: timer.duration, elapsed: timer.elapsed)
        }
    }

    /// `tocsin doctor`'s lines for the timer service and its state folder.
    package static func diagnosis() -> [String] {
        var lines: [String] = []
        var wakeAdvice = "give the service CAP_WAKE_ALARM: make install-wake (a systemd drop-in), "
            + "or log in through pam_systemd 254 or later, which grants it to local sessions"
        if let client = try? ServiceClient() {
            if let version = client.userManagerVersion(), ServiceClient.refusesAmbientCapabilities(version: version) {
                lines.append("user manager: systemd \(version), which fails to start a user unit that asks for a capability "
                    + "(systemd #33167, fixed in 257): if tocsin.service.d/wake.conf (make install-wake) is installed, "
                    + "remove it, or the timer service cannot start")
                wakeAdvice = "not with this systemd (see the user manager line); from systemd 257 on, make install-wake"
            }
            if let pid = client.runningService() {
                lines.append("timer service: running (pid \(pid))")
                switch client.canWake() {
                case true?: lines.append("timer service wakes the machine from suspend for alarms: yes")
                case false?: lines.append("timer service wakes the machine from suspend for alarms: no; to let it, \(wakeAdvice)")
                case nil: break
                }
            } else if client.isActivatable() {
                lines.append("timer service: not running; the session bus starts it at the first call")
            } else {
                lines.append("timer service: cannot be started: " + ServiceClient.activationAdvice)
            }
        } else {
            lines.append("timer service: needs the session bus")
        }
        lines.append(ServiceStore.standard().diagnosis)
        if let engine = try? TimerEngine(delivery: .polled) {
            let failure: String?? = try? engine.wakeFailureReason()
            engine.close()
            let answer: String = switch failure {
            case .some(.none): "yes"
            case .some(.some(let reason)): "no: " + reason
            case .none: "unknown"
            }
            lines.append("wake from suspend (this process): " + answer)
        }
        return lines
    }
}
