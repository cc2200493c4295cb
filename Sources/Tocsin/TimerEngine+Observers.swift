package import CTocsin

/// An engine-wide observer, as returned by `addObserver`.
public struct ObserverID: Hashable, Sendable {
    public let rawValue: UInt64

    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }
}

/// One observer: a C callback, or a Swift closure in a retained box.
struct Observer {
    var id: UInt64
    var callback: tocsin_callback?
    var context: UnsafeMutableRawPointer?
    var box: HandlerBox?
}

extension TimerEngine {
    /// Calls `handler` for every event of every timer of this engine, where
    /// the engine's mode delivers events, before the timer's own handler. For
    /// add-ons that follow timers they do not own (the desktop notifier, a
    /// command's JSON log). Events of timers without a handler are delivered
    /// to observers too.
    ///
    /// - Complexity: O(observers).
    public func addObserver(_ handler: @escaping @Sendable (TimerEvent) -> Void) throws(TocsinError) -> ObserverID {
        try core.addObserver(Observer(id: 0, callback: nil, context: nil, box: HandlerBox(handler)))
    }

    /// C observers (`tocsin_engine_add_observer`).
    package func addObserver(callback: tocsin_callback, context: UnsafeMutableRawPointer?) throws(TocsinError) -> ObserverID {
        try core.addObserver(callback: callback, context: context)
    }

    /// Removes an observer. When this returns (from anywhere but a handler
    /// running on the delivery thread) the observer is not running and will
    /// not run again: it waits for a running delivery to return.
    ///
    /// - Returns: false if the engine has no such observer (never added, or
    ///   removed already): nothing was removed.
    /// - Throws: `.closed`.
    @discardableResult
    public func removeObserver(_ observer: ObserverID) throws(TocsinError) -> Bool {
        let removed = try core.withLockAndWaits { locked throws(TocsinError) -> Observer? in
            guard !locked.core.closed else { throw .closed }
            guard let index = locked.core.observers.firstIndex(where: { $0.id == observer.rawValue }) else {
                return nil
            }
            let removed = locked.core.observers.remove(at: index)
            locked.waitForBatch(locked.core.bumpBatchEpoch(for: nil), runningHandler: nil)
            if !locked.onDeliveringThread {
                locked.wait { $0.deliveringHandle != 0 }
            }
            return removed
        }
        return removed != nil  // a Swift closure is released here, outside the lock
    }
}
