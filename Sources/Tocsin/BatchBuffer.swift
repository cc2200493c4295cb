import CTocsin
import Glibc
import Synchronization

/// A STATE event taken for delivery in a batch, with the handler it goes to.
/// Plain bytes, so a batch is a fixed buffer filled without reference counting
/// or copy helpers while the lock is held.
struct BatchEntry {
    var event: EngineEvent
    var callback: tocsin_callback?
    var context: UnsafeMutableRawPointer?
    /// The timer's Swift handler, retained while the entry holds it.
    var box: Unmanaged<HandlerBox>?
    /// Dropped since it was taken: its timer was freed, or lost its handler.
    var dropped = false
}

/// The events of one batch (at most `EngineCore.batchLimit`), with their
/// handles kept apart and the range of their slot indices, so that a caller
/// asking "is my timer in it?" reads a few words, not every entry.
///
/// Who touches it: the core fills it and empties it under the lock. While
/// the batch is out (`EngineCore.batchOut`) the delivering thread alone
/// reads its entries without the lock, and changes them only under the lock
/// (`EngineCore.recheckBatch`), so no entry is ever read and written at once.
/// Other threads only ask `holds`, under the lock.
struct BatchBuffer {
    let entries: UnsafeMutablePointer<BatchEntry>
    let handles: UnsafeMutablePointer<UInt64>
    private(set) var count = 0
    private var lowestSlot = Int32.max
    private var highestSlot = Int32.min

    /// Nil when out of memory.
    init?(capacity: Int) {
        guard let entries = malloc(capacity * MemoryLayout<BatchEntry>.stride) else { return nil }
        guard let handles = malloc(capacity * MemoryLayout<UInt64>.stride) else {
            free(entries)
            return nil
        }
        self.entries = entries.bindMemory(to: BatchEntry.self, capacity: capacity)
        self.handles = handles.bindMemory(to: UInt64.self, capacity: capacity)
    }

    @inline(__always)
    mutating func append(_ entry: BatchEntry, slot: Int32) {
        (entries + count).initialize(to: entry)
        handles[count] = entry.event.handle
        count += 1
        lowestSlot = min(lowestSlot, slot)
        highestSlot = max(highestSlot, slot)
    }

    func holds(_ handle: UInt64) -> Bool {
        let slot = Int32(truncatingIfNeeded: handle & 0xFF_FFFF)
        guard slot >= lowestSlot, slot <= highestSlot else { return false }
        for position in 0..<count where handles[position] == handle { return true }
        return false
    }

    /// Empties the buffer; the entries' boxes must have been released.
    mutating func removeAll() {
        count = 0
        lowestSlot = .max
        highestSlot = .min
    }

    func deallocate() {
        free(entries)
        free(handles)
    }
}

/// The two words shared without the lock by a batch's delivering thread and
/// the callers that change what it holds.
final class BatchSignals: Sendable {
    /// Bumped by changes to a batch out for delivery.
    let epoch = Atomic<UInt64>(0)
    /// The handle whose batched event is being delivered; 0 if none.
    let claim = Atomic<UInt64>(0)
}
