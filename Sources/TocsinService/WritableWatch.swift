import CGio

/// Calls `body` once, on the service's main loop (the default GLib main
/// context the client and the service run), when `fd` can be written to;
/// cancelled when the watch goes. Lets the command wait for a slow reader
/// without touching GLib itself.
package final class WritableWatch {
    private var source: guint = 0
    private let body: () -> Void

    package init(fd: Int32, _ body: @escaping () -> Void) {
        self.body = body
        let me = Unmanaged.passUnretained(self).toOpaque()
        source = g_unix_fd_add(fd, G_IO_OUT, { _, _, raw in
            let watch = Unmanaged<WritableWatch>.fromOpaque(raw.unsafelyUnwrapped).takeUnretainedValue()
            watch.source = 0
            watch.body()
            return 0  // G_SOURCE_REMOVE: once
        }, me)
    }

    deinit {
        if source != 0 { g_source_remove(source) }
    }
}
