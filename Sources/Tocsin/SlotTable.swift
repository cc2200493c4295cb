import Glibc

/// The engine's timers in one flat, growable array of `TimerSlot`, with a
/// free list threaded through freed slots and handles that carry the slot's
/// generation, so a stale handle is recognised in O(1).
///
/// Handle layout (64 bits): engine tag (24) | generation (16) | slot index (24).
/// A slot whose generation is used up is retired, never reused: handles are
/// unique for the life of the engine. Not thread-safe; the engine's lock
/// guards it.
struct SlotTable {
    static let maxSlots: Int32 = (1 << 24) - 1  // TOCSIN_TIMERS_MAX

    private(set) var base: UnsafeMutablePointer<TimerSlot>?
    /// Slots ever handed out; indices below this are initialized.
    private(set) var count: Int32 = 0
    private var capacity: Int32 = 0
    private var freeHead: Int32 = -1
    /// Timers in use.
    private(set) var live = 0
    /// The engine's tag, 24 bits, never 0: it makes handles non-zero and
    /// tells one engine's handles from another's.
    let tag: UInt64

    init(tag: UInt32) {
        self.tag = UInt64(tag & 0xFF_FFFF)
    }

    subscript(index: Int32) -> UnsafeMutablePointer<TimerSlot> {
        base.unsafelyUnwrapped + Int(index)
    }

    @inline(__always)
    func handle(of index: Int32) -> UInt64 {
        (tag << 40) | (UInt64(self[index].pointee.generation) << 24) | UInt64(index)
    }

    /// The slot index of a live handle of this table, or nil.
    @inline(__always)
    func index(of handle: UInt64) -> Int32? {
        guard handle >> 40 == tag else { return nil }
        return liveIndex(
            Int32(truncatingIfNeeded: handle & 0xFF_FFFF), generation: UInt16(truncatingIfNeeded: handle >> 24))
    }

    /// `index` if its slot is in use under `generation`, or nil.
    @inline(__always)
    func liveIndex(_ index: Int32, generation: UInt16) -> Int32? {
        guard index >= 0, index < count else { return nil }
        let slot = self[index]
        guard !slot.pointee.flags.contains(.free), slot.pointee.generation == generation else { return nil }
        return index
    }

    /// A fresh slot (its generation kept), or nil when out of memory or slots.
    @inline(__always)
    mutating func allocate() -> Int32? {
        let index: Int32
        if freeHead >= 0 {
            index = freeHead
            freeHead = Int32(truncatingIfNeeded: self[index].pointee.anchor)
            let generation = self[index].pointee.generation
            self[index].pointee = TimerSlot()
            self[index].pointee.generation = generation
        } else {
            guard count < Self.maxSlots, count < capacity || grow() else { return nil }
            index = count
            count += 1
            self[index].initialize(to: TimerSlot())
        }
        live += 1
        return index
    }

    /// Frees a slot: its handle goes stale, and the slot is reused under the
    /// next generation, or retired when the generations are used up.
    mutating func release(_ index: Int32) {
        let slot = self[index]
        slot.pointee.flags = [.free]
        slot.pointee.callback = nil
        slot.pointee.context = nil
        slot.pointee.armKey = 0
        live -= 1
        guard slot.pointee.generation < UInt16.max else { return }
        slot.pointee.generation += 1
        slot.pointee.anchor = Int64(freeHead)
        freeHead = index
    }

    /// Makes room for `minimumCapacity` slots without touching them (the
    /// pages are faulted in as slots are first used); false when out of memory.
    mutating func reserve(_ minimumCapacity: Int32) -> Bool {
        minimumCapacity <= capacity || resize(to: min(minimumCapacity, Self.maxSlots))
    }

    private mutating func grow() -> Bool {
        let newCapacity = min(max(capacity * 2, 64), Self.maxSlots)
        return newCapacity > capacity && resize(to: newCapacity)
    }

    private mutating func resize(to newCapacity: Int32) -> Bool {
        let bytes = Int(newCapacity) * MemoryLayout<TimerSlot>.stride
        guard let raw = realloc(base, bytes) else { return false }
        base = raw.bindMemory(to: TimerSlot.self, capacity: Int(newCapacity))
        capacity = newCapacity
        return true
    }

    /// Calls `body` with the index of every timer in use.
    func forEachLive(_ body: (Int32) -> Void) {
        for index in 0..<count where !self[index].pointee.flags.contains(.free) {
            body(index)
        }
    }

    /// Bytes held, for memory accounting.
    var allocatedBytes: Int { Int(capacity) * MemoryLayout<TimerSlot>.stride }

    /// The memory of the next `slotCount` slots never handed out, within
    /// the capacity (to fault in ahead of use).
    func bytesAfterUsed(_ slotCount: Int32) -> UnsafeMutableRawBufferPointer {
        let end = min(count &+ slotCount, capacity)
        guard let base, end > count else { return UnsafeMutableRawBufferPointer(start: nil, count: 0) }
        return UnsafeMutableRawBufferPointer(
            start: base + Int(count), count: Int(end - count) * MemoryLayout<TimerSlot>.stride)
    }

    mutating func deallocate() {
        free(base)
        base = nil
        count = 0
        capacity = 0
        freeHead = -1
        live = 0
    }
}
