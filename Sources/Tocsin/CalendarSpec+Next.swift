/// The next occurrence of a calendar spec, its wall time read in UTC (the
/// zones, and their DST rules, come next: issue 32).
extension CalendarSpec {
    /// The first whole second strictly after `unixSeconds` whose UTC wall
    /// time matches every field; nil if none does before 2200.
    ///
    /// - Complexity: O(days skipped) with whole years and months skipped at
    ///   once; a few microseconds for the usual specs.
    package func next(afterUTC unixSeconds: Int64) -> Int64? {
        let (hourValues, minuteValues, secondValues) = (times.hours, times.minutes, times.seconds)
        guard !hourValues.isEmpty, !minuteValues.isEmpty, !secondValues.isEmpty else { return nil }
        var day = Self.floorDivide(unixSeconds, 86400)
        var threshold = Int(unixSeconds - day * 86400) + 1  // the first second of the day that may match
        while true {
            let (year, month, dayOfMonth) = Self.civil(fromDays: day)
            guard year < 2200 else { return nil }
            if !Self.matches(year, years) {
                day = Self.days(year: year + 1, month: 1, day: 1)
                threshold = 0
                continue
            }
            if !Self.matches(month, months) {
                day = month == 12 ? Self.days(year: year + 1, month: 1, day: 1) : Self.days(year: year, month: month + 1, day: 1)
                threshold = 0
                continue
            }
            let length = Self.daysIn(month: month, year: year)
            let counted = fromMonthEnd ? length - dayOfMonth + 1 : dayOfMonth
            let weekday = Int(Self.floorModulo(day + 3, 7))  // 1970-01-01 was a Thursday (3, from Monday 0)
            if Self.matches(counted, days), weekdays & (1 << weekday) != 0,
               let second = Self.firstTime(atOrAfter: threshold, hourValues, minuteValues, secondValues) {
                return day * 86400 + Int64(second)
            }
            day += 1
            threshold = 0
        }
    }

    /// The first second of the day at or after `threshold` made of the
    /// values given (each sorted).
    static func firstTime(atOrAfter threshold: Int, _ hours: [Int], _ minutes: [Int], _ seconds: [Int]) -> Int? {
        for hour in hours where (hour + 1) * 3600 > threshold {
            for minute in minutes where hour * 3600 + (minute + 1) * 60 > threshold {
                for second in seconds where hour * 3600 + minute * 60 + second >= threshold {
                    return hour * 3600 + minute * 60 + second
                }
            }
        }
        return nil
    }

    /// The values of `range` a field matches, in order.
    static func values(_ elements: [Element]?, _ range: ClosedRange<Int>) -> [Int] {
        range.filter { matches($0, elements) }
    }

    static func matches(_ value: Int, _ elements: [Element]?) -> Bool {
        guard let elements else { return true }
        return elements.contains { element in
            guard value >= element.start else { return false }
            if let stop = element.stop, value > stop { return false }
            if let step = element.step { return (value - element.start) % step == 0 }
            return element.stop != nil || value == element.start
        }
    }

    // MARK: - Days since 1970-01-01 and the civil calendar (proleptic Gregorian)

    package static func days(year: Int, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = (shifted >= 0 ? shifted : shifted - 399) / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146097 + dayOfEra - 719468)
    }

    static func civil(fromDays days: Int64) -> (year: Int, month: Int, day: Int) {
        let shifted = Int(days) + 719468
        let era = (shifted >= 0 ? shifted : shifted - 146096) / 146097
        let dayOfEra = shifted - era * 146097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        value >= 0 ? value / divisor : -((-value + divisor - 1) / divisor)
    }

    static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        value - floorDivide(value, divisor) * divisor
    }
}
