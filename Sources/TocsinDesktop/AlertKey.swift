/// Which alert: a timer of one engine, or a standalone one (`host` nil).
package struct AlertKey: Hashable, Sendable {
    package var host: ObjectIdentifier?
    package var timer: UInt64

    package init(host: ObjectIdentifier?, timer: UInt64) {
        self.host = host
        self.timer = timer
    }
}
