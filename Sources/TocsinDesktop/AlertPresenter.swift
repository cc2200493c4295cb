import CNotify
import TocsinBase

/// Desktop notifications through libnotify. Used only on the notifier's GLib
/// thread: libnotify's proxy, replies and button signals all live there.
final class AlertPresenter {
    /// What to show for one alert.
    struct Content {
        var summary: String
        var body: String
        var icon: String
        var urgency: Alert.Urgency
        var suppressSound: Bool
        /// Buttons to offer, if the server has actions.
        var buttons: [AlertButton]
        /// Percent done (the `value` hint), for a live notification.
        var value: Int32? = nil
        /// Stays when a button is pressed and never expires (a live one).
        var resident = false
        /// `Alert.stackTag`.
        var stackTag: String? = nil
        /// A timer's finish (its alarm, its overtime, "unanswered"): counted
        /// in `finishAlerts` while it shows.
        var isFinishAlert = false
    }

    /// A button press or a close, on the GLib thread.
    /// The notifier's; replaced by no-ops when it closes (they hold it).
    private var onAction: (AlertKey, String) -> Void
    private var onClosed: (AlertKey, _ byUser: Bool) -> Void
    /// How many timers' finish alerts show, each time that changes.
    private var onFinishAlerts: (Int) -> Void

    /// The timers whose finish alert is on screen (the timer service stays
    /// up while any is: gone at its exit, an unanswered alarm would be missed).
    private var finishAlerts: Set<AlertKey> = [] {
        didSet { if finishAlerts.count != oldValue.count { onFinishAlerts(finishAlerts.count) } }
    }

    private var server: NotificationServer?
    private var shown: [AlertKey: UnsafeMutablePointer<NotifyNotification>] = [:]
    /// Server ids to reuse for the next new notification of a key (one an
    /// earlier process showed for the same timer).
    private var adopted: [AlertKey: UInt32] = [:]
    /// Notifications closed by us whose "closed" signal has not come back yet.
    private var closing: [UnsafeMutablePointer<NotifyNotification>] = []

    init(onAction: @escaping (AlertKey, String) -> Void, onClosed: @escaping (AlertKey, Bool) -> Void,
         onFinishAlerts: @escaping (Int) -> Void) {
        self.onAction = onAction
        self.onClosed = onClosed
        self.onFinishAlerts = onFinishAlerts
    }

    /// The server, asked again after any failure (it may have started since).
    func probe() -> Result<NotificationServer, TocsinNotifyFailure> {
        if let server { return .success(server) }
        let result = DesktopProbe.notificationServer()
        if case .success(let found) = result {
            server = found
            if notify_is_initted() == 0 { _ = notify_init("Tocsin") }
        }
        return result
    }

    /// The next notification for `key` replaces the server's notification
    /// `id` (shown by an earlier process) instead of adding one.
    func adopt(_ id: UInt32, for key: AlertKey) {
        if shown[key] == nil { adopted[key] = id }
    }

    /// Closes the notification an earlier process showed for `key` (see
    /// `adopt`), if one was handed over and nothing replaced it: the timer
    /// will not show one of its own (its place went to sooner timers).
    /// True if there was one.
    @discardableResult
    func closeAdopted(_ key: AlertKey) -> Bool {
        guard let id = adopted.removeValue(forKey: key) else { return false }
        closeStray(id)
        return true
    }

    /// The server id of the notification showing for `key`, if any.
    func notificationID(of key: AlertKey) -> UInt32? {
        shown[key].map { tocsin_notification_id($0) }
    }

    /// Closes a notification an earlier process left showing.
    func closeStray(_ id: UInt32) {
        guard case .success = probe() else { return }
        let notification = notify_notification_new("", nil, nil)
        tocsin_notification_set_id(notification, id)
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_close(notification, &error) == 0 { _ = consume(&error) }
        g_object_unref(UnsafeMutableRawPointer(notification))
    }

    /// Shows the alert, or replaces the one already showing for `key` in
    /// place (the same notification id). What the server cannot show is left
    /// out: no buttons without `actions`, the body in the title without `body`.
    func show(_ key: AlertKey, _ content: Content) -> Result<String, TocsinNotifyFailure> {
        let server: NotificationServer
        switch probe() {
        case .success(let found): server = found
        case .failure(let failure): return .failure(failure)
        }
        var (summary, body) = (content.summary, content.body)
        if !server.capabilities.containsSame("body") {
            summary = body.isEmpty ? summary : "\(summary): \(body.parts(at: UInt8(ascii: "\n")).joined(separator: " · "))"
            body = ""
        }
        let notification: UnsafeMutablePointer<NotifyNotification>
        if let existing = shown[key] {
            notification = existing
            notify_notification_update(notification, summary, body, content.icon)
            notify_notification_clear_actions(notification)
            notify_notification_clear_hints(notification)
        } else {
            notification = notify_notification_new(summary, body, content.icon)
            if let id = adopted.removeValue(forKey: key) { tocsin_notification_set_id(notification, id) }
            let token = Unmanaged.passRetained(AlertToken(key, self)).toOpaque()
            _ = tocsin_connect_closed(notification, { notification, raw in
                let token = Unmanaged<AlertToken>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
                token.presenter.closed(notification, token.key)
            }, token, { raw, _ in
                Unmanaged<AlertToken>.fromOpaque(raw.unsafelyUnwrapped).release()
            })
            shown[key] = notification
        }
        notify_notification_set_urgency(notification, urgency(content.urgency))
        let stays = content.urgency == .critical || content.resident
        notify_notification_set_timeout(notification, stays ? 0 : -1)  // 0: never expires
        notify_notification_set_category(notification, "x-tocsin.timer")
        notify_notification_set_hint(notification, "desktop-entry", g_variant_new_string("tocsin"))
        if content.suppressSound {
            notify_notification_set_hint(notification, "suppress-sound", g_variant_new_boolean(1))
        }
        if content.resident {
            notify_notification_set_hint(notification, "resident", g_variant_new_boolean(1))
        }
        if let tag = content.stackTag {
            notify_notification_set_hint(notification, "x-dunst-stack-tag", g_variant_new_string(tag))
            notify_notification_set_hint(notification, "x-canonical-private-synchronous", g_variant_new_string(tag))
        }
        if let value = content.value {
            notify_notification_set_hint(notification, "value", g_variant_new_int32(value))
        }
        if server.capabilities.containsSame("actions") {
            for button in content.buttons {
                let token = Unmanaged.passRetained(AlertToken(key, self)).toOpaque()
                notify_notification_add_action(notification, button.action, button.label, { _, action, raw in
                    let token = Unmanaged<AlertToken>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
                    token.presenter.onAction(token.key, action.map { String(cString: $0) } ?? "")
                }, token, { raw in
                    Unmanaged<AlertToken>.fromOpaque(raw.unsafelyUnwrapped).release()
                })
            }
        }
        var error: UnsafeMutablePointer<GError>?
        guard notify_notification_show(notification, &error) != 0 else {
            self.server = nil  // ask again next time: the server may have gone
            shown[key] = nil
            finishAlerts.remove(key)
            g_object_unref(UnsafeMutableRawPointer(notification))
            return .failure(TocsinNotifyFailure(.unavailable, "cannot show the alert: \(consume(&error))"))
        }
        if content.isFinishAlert && key.host != nil { finishAlerts.insert(key) } else { finishAlerts.remove(key) }
        return .success("\(server.name) \(server.version)")
    }

    /// Withdraws the alert for `key`, if one is showing.
    func close(_ key: AlertKey) {
        adopted[key] = nil
        finishAlerts.remove(key)
        guard let notification = shown.removeValue(forKey: key) else { return }
        var error: UnsafeMutablePointer<GError>?
        if notify_notification_close(notification, &error) == 0 {
            _ = consume(&error)
            g_object_unref(UnsafeMutableRawPointer(notification))
        } else {
            closing.append(notification)  // released when the server confirms
        }
    }

    /// Forgets the notifier's callbacks (after `closeAll`, as it closes):
    /// a button pressed later does nothing.
    func dropCallbacks() {
        onAction = { _, _ in }
        onClosed = { _, _ in }
        onFinishAlerts = { _ in }
    }

    /// Closes every notification shown, without waiting for each answer
    /// (closing one by one, a round trip each, took a busy server over
    /// 20 s for a hundred); returns once the requests are written.
    func closeAll() {
        let bus = g_bus_get_sync(G_BUS_TYPE_SESSION, nil, nil)
        for (_, notification) in shown {
            let id = tocsin_notification_id(notification)
            if let bus, id != 0 {
                var argument = g_variant_new_uint32(id)
                g_dbus_connection_call(
                    bus, "org.freedesktop.Notifications", "/org/freedesktop/Notifications", "org.freedesktop.Notifications",
                    "CloseNotification", g_variant_new_tuple(&argument, 1), nil, G_DBUS_CALL_FLAGS_NO_AUTO_START, -1, nil, nil, nil)
            }
            g_object_unref(UnsafeMutableRawPointer(notification))
        }
        shown = [:]
        adopted = [:]
        finishAlerts = []
        if let bus {
            g_dbus_connection_flush_sync(bus, nil, nil)
            g_object_unref(UnsafeMutableRawPointer(bus))
        }
        for notification in closing { g_object_unref(UnsafeMutableRawPointer(notification)) }
        closing = []
    }

    private func closed(_ notification: UnsafeMutablePointer<NotifyNotification>?, _ key: AlertKey) {
        guard let notification else { return }
        if let index = closing.firstIndex(of: notification) {
            closing.remove(at: index)
            g_object_unref(UnsafeMutableRawPointer(notification))
            return
        }
        guard shown[key] == notification else { return }
        shown[key] = nil
        finishAlerts.remove(key)
        let byUser = notify_notification_get_closed_reason(notification) == 2  // dismissed
        g_object_unref(UnsafeMutableRawPointer(notification))
        onClosed(key, byUser)
    }

    private func urgency(_ urgency: Alert.Urgency) -> NotifyUrgency {
        switch urgency {
        case .low: NOTIFY_URGENCY_LOW
        case .normal: NOTIFY_URGENCY_NORMAL
        case .critical: NOTIFY_URGENCY_CRITICAL
        }
    }
}

/// Passed through libnotify's user data to find the alert again. It keeps
/// the presenter until libnotify frees the notification's actions (the
/// presenter's callbacks are no-ops by then if the notifier has closed).
final class AlertToken {
    let key: AlertKey
    let presenter: AlertPresenter

    init(_ key: AlertKey, _ presenter: AlertPresenter) {
        self.key = key
        self.presenter = presenter
    }
}
