/// A first-in first-out queue over an array: O(1) amortized each way, and
/// compacted as it goes (the slots taken from the front are given back once
/// they are half of it), so a long-lived queue holds no more than twice
/// what waits in it.
struct Queue<Element> {
    private var items: [Element] = []
    private var head = 0

    var isEmpty: Bool { head == items.count }
    var count: Int { items.count - head }
    /// The slots it holds, taken ones included (for tests of compaction).
    var storage: Int { items.count }

    mutating func append(_ item: Element) {
        items.append(item)
    }

    mutating func removeFirst() -> Element? {
        guard !isEmpty else { return nil }
        let first = items[head]
        head += 1
        if isEmpty {
            (items, head) = ([], 0)
        } else if head >= 32 && head * 2 >= items.count {
            items.removeFirst(head)
            head = 0
        }
        return first
    }

    /// Removes the last `count - keeping` items, returning them.
    mutating func cut(keeping: Int) -> [Element] {
        let cut = Array(items[(head + keeping)...])
        items.removeLast(cut.count)
        return cut
    }
}

/// Queues of calls, two levels deep: by identity (the user, each sandboxed
/// app), then by connection. `next()` takes one call of each identity in
/// turn and, within an identity, one of each of its connections in turn:
/// an app that opens ten connections gets no more turns than one with one,
/// and one of the user's programs flooding does not hold up another's.
/// Each connection's calls come out in the order they went in.
struct FairQueues<Element> {
    private struct Identity {
        var connections: [String: Queue<Element>] = [:]
        /// Connections with calls waiting, whose turn is next first.
        var order = Queue<String>()

        /// The next call of its next connection, which goes to the back.
        mutating func take() -> Element? {
            guard let connection = order.removeFirst(), let call = connections[connection]?.removeFirst() else { return nil }
            if connections[connection]!.isEmpty {
                connections[connection] = nil
            } else {
                order.append(connection)
            }
            return call
        }
    }

    private var identities: [String: Identity] = [:]
    /// Identities with calls waiting, whose turn is next first.
    private var order = Queue<String>()
    /// Calls waiting, all told.
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    /// True if `connection` of `identity` has calls waiting.
    func hasWaiting(_ identity: String, _ connection: String) -> Bool {
        identities[identity]?.connections[connection] != nil
    }

    /// True if any connection of `identity` has calls waiting.
    func hasWaiting(_ identity: String) -> Bool { identities[identity] != nil }

    mutating func append(_ item: Element, identity: String, connection: String) {
        if identities[identity] == nil {
            identities[identity] = Identity()
            order.append(identity)
        }
        if identities[identity]!.connections[connection] == nil {
            identities[identity]!.connections[connection] = Queue()
            identities[identity]!.order.append(connection)
        }
        identities[identity]!.connections[connection]!.append(item)
        count += 1
    }

    /// The next call in turn, or nil if none waits. O(1) amortized.
    mutating func next() -> Element? {
        guard let identity = order.removeFirst(), let call = identities[identity]?.take() else { return nil }
        count -= 1
        if identities[identity]!.order.isEmpty {
            identities[identity] = nil
        } else {
            order.append(identity)
        }
        return call
    }

    /// Takes every call out, in turn order.
    mutating func removeAll() -> [Element] {
        var all: [Element] = []
        while let call = next() { all.append(call) }
        return all
    }
}
