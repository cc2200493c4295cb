import CGio

/// Texts no timer event comes before (an alarm's notice, a warning before
/// zero) are written at a time of their own: the service reads the
/// session's locale a second before the next one is due, so that a notice
/// shown an hour after the session's language changed, with no event
/// since, is in that language. Main-loop thread only.
extension SessionLocale {
    /// How long before such a text the locale is read, ns.
    static let lead: Int64 = 1_000_000_000
    /// The longest wait for a look: the main loop's timeout does not count
    /// a suspend, so a notice due after one is looked at within this (an
    /// hour: a wakeup an hour while a notice is awaited).
    static let longestWait: Int64 = 3_600_000_000_000

    /// Works out the next look once the loop is idle (a burst of events or
    /// a flood of calls asks once); asked after every batch of events and
    /// every call.
    func planLook() {
        lookPlanned.schedule()
    }

    func armLook() {
        if look != 0 {
            g_source_remove(look)
            look = 0
        }
        // (One under two leads away: the locale was just read, at an event or a look.)
        guard let due = nextUnprompted(2 * Self.lead) else { return }
        let wait = min(due - Self.lead, Self.longestWait)
        look = g_timeout_add_full(G_PRIORITY_DEFAULT, guint(clamping: wait / 1_000_000), { raw in
            let locale = Unmanaged<SessionLocale>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
            locale.look = 0
            locale.newTurn()
            locale.refresh(locale.connection())
            locale.newTurn()
            locale.armLook()
            return 0  // G_SOURCE_REMOVE
        }, Unmanaged.passUnretained(self).toOpaque(), nil)
    }
}
