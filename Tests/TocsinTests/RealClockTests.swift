import Dispatch
import Glibc
import Synchronization
import Testing
import Tocsin

/// Real-clock runs with short durations. They check order and "never early",
/// never how fast the machine is: timeouts are generous and only catch hangs.
@Suite struct RealClockTests {
    @Test func engineThreadDeliversTicksAndFinishNeverEarly() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let recorder = Recorder()
        let done = DispatchSemaphore(value: 0)
        let deliveredAt = Mutex<[Duration]>([])
        let timer = try engine.countdown(.milliseconds(300))
        try engine.setTickInterval(.milliseconds(100), for: timer)
        try engine.setHandler(for: timer) { event in
            if let now = try? engine.now() { deliveredAt.withLock { $0.append(now) } }
            recorder.handler(event)
            if event.kind == .stateChange && event.state == .finished { done.signal() }
        }
        let started = try engine.now()
        try engine.start(timer)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(recorder.summary == ["state running", "tick 1", "tick 2", "finish", "state finished"])
        let times = deliveredAt.withLock { $0 }
        // Never early: tick k is delivered at or after start + k x 100 ms.
        #expect(times[1] - started >= .milliseconds(100))
        #expect(times[2] - started >= .milliseconds(200))
        #expect(times[3] - started >= .milliseconds(300))
        #expect(recorder.all.allSatisfy { $0.lateness >= .zero })
    }

    @Test func polledFdIsReadableExactlyWhileEventsWait() throws {
        let engine = try TimerEngine(delivery: .polled)
        defer { engine.close() }
        let fd = try engine.pollFileDescriptor()
        let recorder = Recorder()
        #expect(!Self.readable(fd, waitingMilliseconds: 0))
        let timer = try engine.countdown(.milliseconds(150))
        try engine.setHandler(for: timer, recorder.handler)
        try engine.start(timer)
        #expect(Self.readable(fd, waitingMilliseconds: 0))  // STATE(RUNNING) waits
        #expect(try engine.dispatch() == 1)
        #expect(!Self.readable(fd, waitingMilliseconds: 0))
        let begin = try engine.now()
        #expect(Self.readable(fd, waitingMilliseconds: 5_000))
        #expect(try engine.now() - begin >= .milliseconds(100))
        #expect(try engine.dispatch() == 2)
        #expect(!Self.readable(fd, waitingMilliseconds: 0))
        #expect(recorder.summary == ["state running", "finish", "state finished"])
        #expect(try engine.dispatch() == 0)
    }

    @Test func cancelFromAnotherThreadWaitsForARunningCallback() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        defer { engine.close() }
        let inCallback = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        let ticksAfterCancel = Atomic<Int>(0)
        let cancelled = Atomic<Bool>(false)
        let watch = try engine.stopwatch()
        try engine.setTickInterval(.milliseconds(10), for: watch)
        try engine.setHandler(for: watch) { event in
            guard event.kind == .tick else { return }
            if cancelled.load(ordering: .acquiring) { ticksAfterCancel.add(1, ordering: .relaxed) }
            if event.tick == 1 {
                inCallback.signal()
                usleep(200_000)  // hold the callback while the test cancels
                finished.store(true, ordering: .releasing)
            }
        }
        try engine.start(watch)
        #expect(inCallback.wait(timeout: .now() + 10) == .success)
        try engine.cancel(watch)
        cancelled.store(true, ordering: .releasing)
        let callbackReturned = finished.load(ordering: .acquiring)
        #expect(callbackReturned)  // cancel returned only after the callback did
        usleep(50_000)
        let lateTicks = ticksAfterCancel.load(ordering: .relaxed)
        #expect(lateTicks == 0)
    }

    @Test func closeFromAnotherThreadWaitsAndNothingRunsAfterwards() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        let calls = Atomic<Int>(0)
        let closed = Atomic<Bool>(false)
        let afterClose = Atomic<Int>(0)
        for _ in 0..<50 {
            let watch = try engine.stopwatch()
            try engine.setTickInterval(.milliseconds(1), for: watch)
            try engine.setHandler(for: watch) { _ in
                if closed.load(ordering: .acquiring) { afterClose.add(1, ordering: .relaxed) }
                calls.add(1, ordering: .relaxed)
            }
            try engine.start(watch)
        }
        #expect(waitUntil { calls.load(ordering: .relaxed) > 0 })  // callbacks are running
        engine.close()
        closed.store(true, ordering: .releasing)
        usleep(50_000)
        let (callCount, lateCalls) = (calls.load(ordering: .relaxed), afterClose.load(ordering: .relaxed))
        #expect(callCount > 0)
        #expect(lateCalls == 0)
    }

    @Test func closingFromItsOwnCallbackOnTheEngineThreadDoesNotDeadlock() throws {
        let engine = try TimerEngine(delivery: .engineThread)
        let done = DispatchSemaphore(value: 0)
        let timer = try engine.countdown(.milliseconds(20))
        try engine.setHandler(for: timer) { event in
            if event.kind == .finish {
                engine.close()
                done.signal()
            }
        }
        try engine.start(timer)
        #expect(done.wait(timeout: .now() + 10) == .success)
        #expect(expectError(.closed) { () throws(TocsinError) in try engine.countdown(.seconds(1)) })
    }

    static func readable(_ fd: Int32, waitingMilliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, waitingMilliseconds) == 1
    }
}
