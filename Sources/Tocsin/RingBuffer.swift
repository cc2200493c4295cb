/// A double-ended FIFO of plain values (no references: elements are copied
/// as bytes and never deinitialized) in one power-of-two buffer. Not
/// thread-safe; the engine's lock guards it.
struct RingBuffer<Element: BitwiseCopyable> {
    private var base: UnsafeMutablePointer<Element>?
    private var mask = -1  // capacity - 1
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count > 0 ? base.unsafelyUnwrapped[head] : nil }

    mutating func append(_ element: Element) {
        if count == mask + 1 { grow(to: max(16, count * 2)) }
        base.unsafelyUnwrapped[(head + count) & mask] = element
        count += 1
    }

    mutating func prepend(_ element: Element) {
        if count == mask + 1 { grow(to: max(16, count * 2)) }
        head = (head - 1) & mask
        base.unsafelyUnwrapped[head] = element
        count += 1
    }

    mutating func removeFirst() -> Element? {
        guard count > 0 else { return nil }
        let element = base.unsafelyUnwrapped[head]
        head = (head + 1) & mask
        count -= 1
        return element
    }

    /// Frees the buffer.
    mutating func removeAll() {
        base?.deallocate()
        self = RingBuffer()
    }

    /// Makes room for `minimumCapacity` elements (rounded up to a power of
    /// two) without touching them.
    mutating func reserve(_ minimumCapacity: Int) {
        if minimumCapacity > mask + 1 { grow(to: minimumCapacity) }
    }

    private mutating func grow(to minimumCapacity: Int) {
        var capacity = 16
        while capacity < minimumCapacity { capacity *= 2 }
        let grown = UnsafeMutablePointer<Element>.allocate(capacity: capacity)
        for offset in 0..<count {
            (grown + offset).initialize(to: base.unsafelyUnwrapped[(head + offset) & mask])
        }
        base?.deallocate()
        base = grown
        mask = capacity - 1
        head = 0
    }
}
