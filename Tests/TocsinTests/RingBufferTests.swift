import Testing
@testable import Tocsin

/// The STATE queue's buffer: first in, first out across wrap-round and
/// growth, whichever end the elements went in at.
@Suite struct RingBufferTests {
    @Test func keepsOrderWhenItGrowsWhileWrappedRound() {
        var ring = RingBuffer<Int>()
        let reserved = ring.reserve(16)
        #expect(reserved)
        var expected: [Int] = []
        var next = 0
        // Every shape of wrap-round: the head moves on by a different amount
        // before each doubling.
        for round in 0..<6 {
            for _ in 0..<(round * 3 + 1) {
                let removed = ring.removeFirst()
                #expect(removed == (expected.isEmpty ? nil : expected.removeFirst()))
            }
            while ring.count < 16 << round {
                #expect(add(next, to: &ring))
                expected.append(next)
                next += 1
            }
            #expect(add(next, to: &ring))  // full: grows with elements wrapped round
            expected.append(next)
            next += 1
        }
        var drained: [Int] = []
        while let element = ring.removeFirst() { drained.append(element) }
        #expect(drained == expected)
        ring.removeAll()
    }

    @Test func prependedElementsComeFirstAcrossGrowth() {
        var ring = RingBuffer<Int>()
        for value in 0..<20 { #expect(add(value, to: &ring)) }
        for value in 0..<5 { _ = ring.removeFirst(); #expect(add(100 + value, to: &ring)) }
        for value in 1...30 { #expect(add(-value, to: &ring, atFront: true)) }  // wraps the head backwards, then grows
        var drained: [Int] = []
        while let element = ring.removeFirst() { drained.append(element) }
        #expect(drained == Array((1...30).reversed().map { -$0 }) + Array(5..<20) + Array(100..<105))
        ring.removeAll()
    }

    @Test func makeRoomLeavesTheContentsAlone() {
        var ring = RingBuffer<Int>()
        for value in 0..<10 { ring.append(value) }
        for _ in 0..<7 { _ = ring.removeFirst() }
        for value in 10..<20 { ring.append(value) }  // wrapped round in 16 entries
        let made = ring.makeRoom(for: 100)
        #expect(made)
        #expect(ring.count == 13)
        var drained: [Int] = []
        while let element = ring.removeFirst() { drained.append(element) }
        #expect(drained == Array(7..<20))
        ring.removeAll()
    }

    private func add(_ value: Int, to ring: inout RingBuffer<Int>, atFront: Bool = false) -> Bool {
        atFront ? ring.prepend(value) : ring.append(value)
    }
}
