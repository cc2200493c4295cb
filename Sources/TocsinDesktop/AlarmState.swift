/// What the notifier keeps of a timer's alarm.
struct AlarmState {
    /// What the ring's alert shows, when it rang (Unix seconds) and for how
    /// long its sound rings (ns): to say when a ring went unanswered.
    struct Ring {
        var content: AlertPresenter.Content
        var at: Int64
        var length: Int64
    }

    /// Its finish alert is up: its Snooze snoozes (elsewhere the live
    /// notification's "+1 min" adds a minute).
    var ringing = false
    /// Snoozed, its alert (not a live one) says so until the next ring: the
    /// next run does not withdraw it, so that the ring replaces it (one
    /// notification, one id).
    var snoozed = false
    var ring: Ring?
}
