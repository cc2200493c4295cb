/// A Swift handler, retained in its timer's slot as the callback context.
final class HandlerBox: Sendable {
    let body: @Sendable (TimerEvent) -> Void

    init(_ body: @escaping @Sendable (TimerEvent) -> Void) {
        self.body = body
    }
}
