import Glibc
import Tocsin
import TocsinBase
package import TocsinService
package import TocsinNotify

/// What `-b` hands to the timer service: each timer of a plan as one `Add`,
/// in order, each waiting for the one before unless side by side, the whole
/// plan `rounds` times; and when each will end, for the line printed.
package struct BackgroundPlan {
    /// One `Add` call.
    package struct Add {
        package var label: String
        /// A countdown's seconds, or an alarm's Unix time.
        package var seconds: Double
        package var options: [(String, ServiceValue)]
        /// Waits for the timer added before it (its id goes in `after`).
        package var waitsForPrevious: Bool
        /// When it ends, in Unix seconds, if every one before it runs out
        /// on time.
        package var endsAt: Double
    }

    package var adds: [Add] = []

    /// The adds for `plan`, counting from `now` (Unix seconds).
    /// `wake`: wake the machine from suspend for each timer (nil: the
    /// service's default, which is yes for clock times only).
    /// `command`: a shell command the service runs at each one's finish (`exec`).
    package init(_ plan: TimerPlan, rounds: Int, parallel: Bool, settings: AlarmSettings, awake: Bool, now: Int,
                 wake: Bool? = nil, command: String? = nil) {
        var startsAt = Double(now)  // when the next one in the sequence starts
        for _ in 0..<rounds {
            for entry in plan.entries {
                var options = settings.serviceOptions
                if let wake { options.append(("wake", .flag(wake))) }
                if let command { options.append(("exec", .text(command))) }
                let seconds: Double
                let endsAt: Double
                if let wallTime = entry.time.wallTime(after: now) {
                    options.append(("kind", .text("alarm")))
                    seconds = Double(wallTime)
                    endsAt = seconds
                } else {
                    seconds = Nanos.seconds(entry.time.nanoseconds())
                    if awake { options.append(("clock", .text("awake"))) }
                    endsAt = (parallel ? Double(now) : startsAt) + seconds
                }
                if !parallel { startsAt = endsAt }
                adds.append(Add(label: entry.label, seconds: seconds, options: options,
                                waitsForPrevious: !parallel && !adds.isEmpty, endsAt: endsAt))
            }
        }
    }

    /// Hands the adds to the service in order; says each timer's id and the
    /// time of day it ends as it is added (`say`).
    package func run(on client: ServiceClient, say: (String) -> Void) throws(ServiceClient.Failure) {
        var previous: UInt64?
        for add in adds {
            var options = add.options
            if add.waitsForPrevious, let previous { options.append(("after", .id(previous))) }
            let id = try client.add(label: add.label, seconds: add.seconds, options: options)
            let end = Int64(add.endsAt.rounded(.up))
            if Wording.isLocalToday(unixSeconds: end) {
                say(tr("{label}: id {id}, ends at {time}", ["label": add.label, "id": String(id),
                                                            "time": Wording.localTimeOfDay(unixSeconds: end, seconds: true)]))
            } else {  // ("ends at 17:00:00" at 18:44 read as the past)
                say(tr("{label}: id {id}, ends {date}", ["label": add.label, "id": String(id),
                                                         "date": Wording.localDateAndTime(unixSeconds: end)]))
            }
            previous = id
        }
    }
}
