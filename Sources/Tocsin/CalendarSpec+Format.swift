/// A calendar spec as systemd prints it (`systemd-analyze calendar`'s
/// "Normalized form").
extension CalendarSpec {
    /// As systemd prints it: `Mon..Fri *-*-* 07:00:00 Europe/Berlin`.
    package var normalized: String {
        var text = ""
        if weekdays != 0x7F { text += Self.format(weekdays: weekdays) + " " }
        text += Self.format(years, digits: 4) + "-" + Self.format(months, digits: 2) + (fromMonthEnd ? "~" : "-")
            + Self.format(days, digits: 2) + " "
        text += Self.format(hours, digits: 2) + ":" + Self.format(minutes, digits: 2) + ":" + Self.format(seconds, digits: 2)
        if let zone { text += " " + zone }
        return text
    }

    /// Runs of three or more days as a range, the rest one by one.
    static func format(weekdays mask: UInt8) -> String {
        let names = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
        var parts: [String] = []
        var day = 0
        while day < 7 {
            guard mask & (1 << day) != 0 else {
                day += 1
                continue
            }
            var last = day
            while last + 1 < 7, mask & (1 << (last + 1)) != 0 { last += 1 }
            if last - day >= 2 {
                parts.append(names[day] + ".." + names[last])
            } else {
                for each in day...last { parts.append(names[each]) }
            }
            day = last + 1
        }
        return parts.joined(separator: ",")
    }

    static func format(_ elements: [Element]?, digits: Int) -> String {
        guard let elements else { return "*" }
        func padded(_ value: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, digits - text.utf8.count)) + text
        }
        return elements.map { element in
            var text = padded(element.start)
            if let stop = element.stop { text += ".." + padded(stop) }
            if let step = element.step { text += "/" + String(step) }
            return text
        }.joined(separator: ",")
    }
}

extension ZoneRules {
    /// `Mon 2027-03-29 07:00:00 +02:00`: a Unix time as this zone's clocks
    /// read it, with their offset from UTC; `weekdayName` names the day
    /// (0 = Monday; English, as systemd writes it, unless given).
    package func wallText(unixSeconds: Int64, weekdayName: (Int) -> String = { ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"][$0] })
        -> String {
        let offset = Int64(self.offset(at: unixSeconds))
        let local = unixSeconds + offset
        let day = CalendarSpec.floorDivide(local, 86400)
        let (year, month, dayOfMonth) = CalendarSpec.civil(fromDays: day)
        let weekday = Int(CalendarSpec.floorModulo(day + 3, 7))
        let second = Int(local - day * 86400)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let name = weekdayName(weekday)
        let sign = offset < 0 ? "-" : "+"
        let minutes = Int(abs(offset) / 60)
        return "\(name) \(year)-\(two(month))-\(two(dayOfMonth)) "
            + "\(two(second / 3600)):\(two(second / 60 % 60)):\(two(second % 60)) \(sign)\(two(minutes / 60)):\(two(minutes % 60))"
    }
}
