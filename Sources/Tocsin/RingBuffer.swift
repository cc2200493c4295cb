/// A double-ended FIFO of plain values in one growable buffer. Not
/// thread-safe; the engine's lock guards it.
struct RingBuffer<Element> {
    private var storage: [Element?] = []
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count > 0 ? storage[head] : nil }

    mutating func append(_ element: Element) {
        growIfFull()
        storage[(head + count) % storage.count] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        growIfFull()
        head = (head - 1 + storage.count) % storage.count
        storage[head] = element
        count += 1
    }

    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = storage[head]
        storage[head] = nil
        head = (head + 1) % storage.count
        count -= 1
        return element
    }

    mutating func removeAll() {
        storage = []
        head = 0
        count = 0
    }

    private mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown = [Element?](repeating: nil, count: max(16, storage.count * 2))
        for offset in 0..<count {
            grown[offset] = storage[(head + offset) % storage.count]
        }
        storage = grown
        head = 0
    }
}
