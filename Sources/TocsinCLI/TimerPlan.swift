import TocsinBase

/// The timers a command line asks for, in order.
///
/// Words that are times make timers; adjacent unlabelled durations add up
/// (like `sleep 1h 30m`); "25m:Work" gives a timer its label and ends it;
/// "until 14:30" counts down to a clock time (colon words: `TimeSpec`); other words label the time
/// before them ("10s Eggs 20s Rice": two timers), and words before any
/// time label the timers left without one ("Tea is ready"). A word that
/// starts with a digit but is not a time is an error, so that a typo never
/// becomes a label.
public struct TimerPlan: Equatable, Sendable {
    public struct Entry: Equatable, Sendable {
        public var time: TimeSpec
        public var label: String

        public init(time: TimeSpec, label: String) {
            self.time = time
            self.label = label
        }
    }

    public var entries: [Entry]

    public static let defaultLabel = "Timer"

    /// No timers (for `tocsin resume`, whose timers come from a file).
    public static let empty = TimerPlan(entries: [])

    private init(entries: [Entry]) {
        self.entries = entries
    }

    public struct Failure: Error, Equatable, CustomStringConvertible {
        public var description: String
    }

    public init(words: [String]) throws(Failure) {
        var entries: [Entry] = []
        var unlabelled: [Int] = []
        var pending: TimeSpec?
        var pendingWords: [String] = []  // words after the pending time: its label
        var message: [String] = []

        func close() {
            if let time = pending {
                if pendingWords.isEmpty { unlabelled.append(entries.count) }
                entries.append(Entry(time: time, label: pendingWords.joined(separator: " ")))
            }
            pending = nil
            pendingWords = []
        }

        var index = 0
        while index < words.count {
            let word = words[index]
            index += 1
            if word.lowercased() == "until" {
                guard index < words.count else { throw Failure(description: "'until' needs a clock time, e.g. until 14:30") }
                guard let (spec, label) = Self.clockTimer(words[index]) else {
                    throw Failure(description: "'until \(words[index])' is not a clock time: use e.g. until 14:30 or until 2:30pm")
                }
                index += 1
                close()
                if let label { entries.append(Entry(time: spec, label: label)) } else { pending = spec; close() }
                continue
            }
            if let (spec, label) = try Self.timerIfTime(word) {
                if !pendingWords.isEmpty { close() }  // the words between labelled the time before
                if let label {
                    if let time = pending, case .duration(let a) = time, case .duration(let b) = spec {
                        pending = nil
                        entries.append(Entry(time: .duration(nanoseconds: a + b), label: label))
                    } else {
                        close()
                        entries.append(Entry(time: spec, label: label))
                    }
                } else if let time = pending, case .duration(let a) = time, case .duration(let b) = spec {
                    pending = .duration(nanoseconds: a + b)
                } else {
                    close()
                    pending = spec
                }
                continue
            }
            if pending != nil { pendingWords.append(word) } else { message.append(word) }
        }
        close()
        guard !entries.isEmpty else {
            let hint = words.isEmpty ? tr("no time given") : tr("'{words}' has no time", ["words": words.joined(separator: " ")])
            throw Failure(description: tr("{problem}: give {forms}", ["problem": hint, "forms": TimeSpec.acceptedForms]))
        }
        if !message.isEmpty && unlabelled.isEmpty {
            throw Failure(description: tr("'{words}' is not a time, and every timer already has a label: give {forms}",
                                          ["words": message.joined(separator: " "), "forms": TimeSpec.acceptedForms]))
        }
        let label = message.isEmpty ? Self.defaultLabel : message.joined(separator: " ")
        for position in unlabelled { entries[position].label = label }
        self.entries = entries
    }

    /// A word as a timer, or nil if it is not meant as a time at all.
    private static func timerIfTime(_ word: String) throws(Failure) -> (TimeSpec, String?)? {
        guard let first = word.first, first.isNumber || first == "." else { return nil }
        return try timer(word)
    }

    /// "25m", "25m:Work", "0:30:Tea", "17:30", "17:30:Work": the time and
    /// its label. A time that could be read two ways ("5:00") is refused
    /// with both readings.
    private static func timer(_ word: String) throws(Failure) -> (TimeSpec, String?) {
        if let spec = TimeSpec.parse(word) { return (spec, nil) }
        if let ambiguity = TimeSpec.ambiguity(of: word) { throw Failure(description: ambiguity) }
        if let problem = TimeSpec.fieldProblem(of: word) { throw Failure(description: "\(word): \(problem)") }
        var colon = word.lastIndex(of: ":")
        while let split = colon {
            let time = String(word[..<split])
            if let spec = TimeSpec.parse(time) {
                let label = String(word[word.index(after: split)...])
                return (spec, label.isEmpty ? nil : label)
            }
            if let ambiguity = TimeSpec.ambiguity(of: time) { throw Failure(description: ambiguity) }
            if let problem = TimeSpec.fieldProblem(of: time) { throw Failure(description: "\(time): \(problem)") }
            if let problem = TimeSpec.rangeProblem(time) { throw Failure(description: "\(word): \(problem)") }
            colon = word[..<split].lastIndex(of: ":")
        }
        if let problem = TimeSpec.rangeProblem(word) { throw Failure(description: "\(word): \(problem)") }
        throw Failure(description: tr("'{words}' is not a time: give {forms}", ["words": word, "forms": TimeSpec.acceptedForms]))
    }

    /// After `until`: "14:30", "5:00", "7am", "14:30:Standup"; nil if the
    /// word does not start with a clock time.
    private static func clockTimer(_ word: String) -> (TimeSpec, String?)? {
        if let spec = TimeSpec.parseClockTime(word) { return (spec, nil) }
        var colon = word.lastIndex(of: ":")
        while let split = colon {
            if let spec = TimeSpec.parseClockTime(String(word[..<split])) {
                let label = String(word[word.index(after: split)...])
                return (spec, label.isEmpty ? nil : label)
            }
            colon = word[..<split].lastIndex(of: ":")
        }
        return nil
    }
}
