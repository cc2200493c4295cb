extension EngineCore {
    /// Frees the tables and fds once, and returns the Swift handlers for the
    /// caller to release after dropping the lock.
    mutating func teardown() -> [Unmanaged<HandlerBox>] {
        guard !tornDown else { return [] }
        tornDown = true
        closed = true
        var boxes: [Unmanaged<HandlerBox>] = []
        for index in 0..<slots.count where !slots[index].pointee.flags.contains(.free) {
            if let box = takeSwiftHandler(index) { boxes.append(box) }
        }
        slots.deallocate()
        heap.deallocate()
        pending.removeAll()
        for observer in observers {
            if let box = observer.box { boxes.append(Unmanaged.passRetained(box)) }
        }
        observers = []  // the closures live on in `boxes` until the lock is dropped
        labels = [:]
        laps = [:]
        ticks = [:]
        heldFinishes = [:]
        baseDurations = [:]
        awakeTimers = []
        alarmTimes = [:]
        kernel?.close()
        wake?.close()
        wake = nil
        return boxes
    }
}
