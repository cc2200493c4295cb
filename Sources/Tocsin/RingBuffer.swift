import Glibc

/// A double-ended FIFO of plain values (no references: elements are copied
/// as bytes and never deinitialized) in one power-of-two buffer. It grows
/// with `realloc`, which for a large buffer remaps its pages instead of
/// copying them, so a queue that doubles touches only its new half. Not
/// thread-safe; the engine's lock guards it.
struct RingBuffer<Element: BitwiseCopyable> {
    private var base: UnsafeMutablePointer<Element>?
    private var mask = -1  // capacity - 1
    private var head = 0
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }
    var first: Element? { count > 0 ? base.unsafelyUnwrapped[head] : nil }

    /// Adds `element` at the back; false (and nothing added) when the
    /// buffer is full and cannot grow.
    @discardableResult
    @inline(__always)
    mutating func append(_ element: Element) -> Bool {
        guard makeRoom(for: 1) else { return false }
        base.unsafelyUnwrapped[(head + count) & mask] = element
        count += 1
        return true
    }

    /// Adds `element` at the front; false (and nothing added) when the
    /// buffer is full and cannot grow.
    @discardableResult
    mutating func prepend(_ element: Element) -> Bool {
        guard makeRoom(for: 1) else { return false }
        head = (head - 1) & mask
        base.unsafelyUnwrapped[head] = element
        count += 1
        return true
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
        free(base)
        self = RingBuffer()
    }

    /// Makes sure `extra` more elements fit, doubling as needed; false when
    /// out of memory (the buffer is unchanged).
    @inline(__always)
    mutating func makeRoom(for extra: Int) -> Bool {
        count + extra <= mask + 1 || grow(to: count + extra)
    }

    /// Makes room for `minimumCapacity` elements (rounded up to a power of
    /// two) without touching them; false when out of memory.
    mutating func reserve(_ minimumCapacity: Int) -> Bool {
        minimumCapacity <= mask + 1 || grow(to: minimumCapacity)
    }

    private mutating func grow(to minimumCapacity: Int) -> Bool {
        let oldCapacity = mask + 1
        var capacity = max(16, oldCapacity * 2)
        while capacity < minimumCapacity { capacity *= 2 }
        let (bytes, overflow) = capacity.multipliedReportingOverflow(by: MemoryLayout<Element>.stride)
        guard !overflow, let raw = realloc(base, bytes) else { return false }
        let grown = raw.bindMemory(to: Element.self, capacity: capacity)
        // Elements that had wrapped round to the front of the old buffer
        // move to just past its end, where the doubled buffer continues.
        let wrapped = head + count - oldCapacity
        if wrapped > 0 {
            (grown + oldCapacity).initialize(from: grown, count: wrapped)
        }
        base = grown
        mask = capacity - 1
        return true
    }
}
