import Glibc

/// One armed timer in the deadline heap: 16 bytes.
struct HeapEntry {
    /// Clock time (ns) at which the timer's next event falls due.
    var deadline: Int64
    /// (arm sequence << 24) | slot index. Sequences grow with each start or
    /// resume, so equal deadlines come out in start order.
    var key: UInt64

    @inline(__always)
    func precedes(_ other: HeapEntry) -> Bool {
        deadline < other.deadline || (deadline == other.deadline && key < other.key)
    }

    var slotIndex: Int32 { Int32(truncatingIfNeeded: key & 0xFF_FFFF) }
}

/// A 4-ary min-heap of `HeapEntry` in one flat buffer: half the depth of a
/// binary heap, and the four children of a node share a cache line.
///
/// Cancelled entries are not searched for: the engine marks them stale (their
/// key no longer matches the slot's) and drops them when they reach the top,
/// or compacts the heap when stale entries outnumber live ones. Not
/// thread-safe; the engine's lock guards it.
struct DeadlineHeap {
    private var base: UnsafeMutablePointer<HeapEntry>?
    private(set) var count = 0
    private var capacity = 0

    var isEmpty: Bool { count == 0 }

    /// The earliest entry. O(1).
    var top: HeapEntry? { count > 0 ? base.unsafelyUnwrapped.pointee : nil }

    /// Adds an entry; false when out of memory. O(log n).
    @inline(__always)
    mutating func push(_ entry: HeapEntry) -> Bool {
        guard count < capacity || resize(to: max(capacity * 2, 64)) else { return false }
        count += 1
        siftUp(entry, from: count - 1)
        checkInvariantsInDebug()
        return true
    }

    /// Makes room for `minimumCapacity` entries without touching them; false
    /// when out of memory.
    mutating func reserve(_ minimumCapacity: Int) -> Bool {
        minimumCapacity <= capacity || resize(to: minimumCapacity)
    }

    private mutating func resize(to newCapacity: Int) -> Bool {
        guard let raw = realloc(base, newCapacity * MemoryLayout<HeapEntry>.stride) else {
            return false
        }
        base = raw.bindMemory(to: HeapEntry.self, capacity: newCapacity)
        capacity = newCapacity
        return true
    }

    /// Removes the earliest entry. O(log n).
    mutating func removeTop() {
        count -= 1
        if count > 0 {
            siftDown(base.unsafelyUnwrapped[count], from: 0)
        }
        checkInvariantsInDebug()
    }

    /// The position (1 to 4) of the earliest entry after the top: in a 4-ary
    /// heap it is one of the top's children. Nil with fewer than two entries. O(1).
    var runnerUpPosition: Int? {
        guard count > 1 else { return nil }
        let base = base.unsafelyUnwrapped
        var best = 1
        for child in 2..<min(5, count) where base[child].precedes(base[best]) { best = child }
        return best
    }

    subscript(position: Int) -> HeapEntry { base.unsafelyUnwrapped[position] }

    /// Removes the entry at `position` (not the top: see `removeTop`). O(log n).
    mutating func remove(at position: Int) {
        count -= 1
        guard position < count else {
            checkInvariantsInDebug()
            return
        }
        let last = base.unsafelyUnwrapped[count]
        let base = base.unsafelyUnwrapped
        if last.precedes(base[(position - 1) / 4]) {
            siftUp(last, from: position)
        } else {
            siftDown(last, from: position)
        }
        checkInvariantsInDebug()
    }

    /// Removes every entry, keeping the buffer. O(1).
    mutating func removeAll() { count = 0 }

    /// Moves the earliest entry to a later deadline (a ticking timer's next
    /// tick), cheaper than remove and push. O(log n).
    mutating func retimeTop(to deadline: Int64) {
        var entry = base.unsafelyUnwrapped.pointee
        entry.deadline = deadline
        siftDown(entry, from: 0)
        checkInvariantsInDebug()
    }

    /// Keeps only the entries `isLive` accepts and rebuilds the heap. O(n).
    mutating func compact(keeping isLive: (HeapEntry) -> Bool) {
        guard let base else { return }
        var kept = 0
        for index in 0..<count where isLive(base[index]) {
            base[kept] = base[index]
            kept += 1
        }
        count = kept
        if count > 1 {
            for index in stride(from: (count - 2) / 4, through: 0, by: -1) {
                siftDown(base[index], from: index)
            }
        }
        checkInvariantsInDebug()
    }

    private mutating func siftUp(_ entry: HeapEntry, from start: Int) {
        let base = base.unsafelyUnwrapped
        var index = start
        while index > 0 {
            let parent = (index - 1) / 4
            guard entry.precedes(base[parent]) else { break }
            base[index] = base[parent]
            index = parent
        }
        base[index] = entry
    }

    private mutating func siftDown(_ entry: HeapEntry, from start: Int) {
        let base = base.unsafelyUnwrapped
        var index = start
        while true {
            let first = 4 * index + 1
            guard first < count else { break }
            var best = first
            let last = min(first + 4, count)
            var child = first + 1
            while child < last {
                if base[child].precedes(base[best]) { best = child }
                child += 1
            }
            guard base[best].precedes(entry) else { break }
            base[index] = base[best]
            index = best
        }
        base[index] = entry
    }

    /// Bytes held, for memory accounting.
    var allocatedBytes: Int { capacity * MemoryLayout<HeapEntry>.stride }

    /// The memory of the next `entryCount` entries past the last, within
    /// the capacity (to fault in ahead of use).
    func bytesAfterUsed(_ entryCount: Int) -> UnsafeMutableRawBufferPointer {
        let end = min(count + entryCount, capacity)
        guard let base, end > count else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        return UnsafeMutableRawBufferPointer(start: base + count, count: (end - count) * MemoryLayout<HeapEntry>.stride)
    }

    mutating func deallocate() {
        free(base)
        base = nil
        count = 0
        capacity = 0
    }

    /// Every parent precedes its children. O(n).
    func checkInvariants() -> Bool {
        guard let base else { return count == 0 }
        for index in 1..<max(count, 1) where base[index].precedes(base[(index - 1) / 4]) {
            return false
        }
        return true
    }

    /// Heaps up to this size are checked after every change in debug builds
    /// (the tests' heaps); larger ones would make debug builds quadratic.
    static var checkedCount: Int { 256 }

    /// Debug builds: asserts `checkInvariants()` after a change, for heaps of
    /// at most `checkedCount` entries. Release builds: nothing.
    @inline(__always)
    private func checkInvariantsInDebug() {
        #if DEBUG
        if count <= Self.checkedCount { assert(checkInvariants(), "deadline heap out of order") }
        #endif
    }
}
