import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP server for failure cases real servers do not produce on demand: it answers every
/// connection with fixed bytes and then closes it (or keeps it open without a word, or trickles bytes
/// forever). Connections are served at the same time, each on its own thread, and ``peakConnections``
/// tells how many were open at once. The `security.hostile` suite and the test suite use it.
///
/// ```swift
/// let server = try RawTCPServer(reply: .bytes(Data("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nshort".utf8)))
/// defer { server.stop() }
/// ```
public final class RawTCPServer: @unchecked Sendable {
    /// What the server does with a connection.
    public enum Behavior: Sendable {
        /// Reads the request head, writes these bytes, closes.
        case bytes(Data)
        /// Reads the request head, waits, then writes these bytes and closes.
        case delayedBytes(Data, after: Duration)
        /// Answers the first connection with the first reply, the second with the second, and so on; every
        /// later connection with the last.
        case replies([Data])
        /// Never accepts: connections wait in the listen backlog (TCP completes, nothing answers).
        case neverAccept
        /// Accepts and reads, and never answers.
        case silent
        /// Keeps each connection open for more requests: the n-th request the server reads (counted
        /// across connections) gets the n-th reply, every later one the last. The connection closes when
        /// the client closes it.
        case keepAlive([Data])
        /// Reads the request head, writes `first`, then writes `repeated` every `interval` until the
        /// client or ``stop()`` ends the connection (a server that never finishes).
        case trickle(first: Data, repeated: Data, every: Duration)
        /// Answers the first request of each connection with these bytes and keeps the connection open;
        /// reads the second request (its `Content-Length` body too) and closes without a word: a server
        /// that closes an idle connection just as the client sends on it.
        case closeOnSecondRequest(Data)
    }

    /// The port it listens on, on 127.0.0.1.
    public let port: Int
    private let descriptor: Int32
    private let behavior: Behavior
    private let lock = NSLock()
    private var stopped = false
    /// Whether a thread serves connections (every behaviour but `neverAccept`); it then owns and closes
    /// the descriptors.
    private let serving: Bool
    private var connections: [Int32] = []
    /// Connections waiting for their answer, and the most there were at once.
    private var waiting = 0
    private var peak = 0
    private var accepted = 0
    private var requestHeads: [Data] = []

    /// The most connections that were open at once waiting for their answer (one that got its answer
    /// no longer counts, though this end may not have closed it yet).
    public var peakConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return peak
    }

    /// The connections accepted so far.
    public var acceptedConnections: Int {
        lock.lock()
        defer { lock.unlock() }
        return accepted
    }

    /// The request heads read so far (up to and including the blank line), in the order they arrived.
    public var receivedHeads: [Data] {
        lock.lock()
        defer { lock.unlock() }
        return requestHeads
    }

    /// Starts listening on a free loopback port.
    public init(reply behavior: Behavior) throws {
        self.behavior = behavior
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw POSIXError(.EIO) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(descriptor, 64) == 0 else { close(descriptor); throw POSIXError(.EADDRINUSE) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        withUnsafeMutablePointer(to: &address) {
            _ = $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        self.descriptor = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
        if case .neverAccept = behavior {
            serving = false
            return
        }
        serving = true
        let thread = Thread { [self] in serve() }
        thread.start()
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Stops listening and ends every connection.
    ///
    /// The serving threads close the descriptors, not this: one may be in `accept` or `recv` on one of
    /// them, and a descriptor closed under it could be reused at once by another socket of the process
    /// (another test's HTTP connection), which that thread would then read from or close. `shutdown`
    /// wakes it instead.
    public func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        shutdown(descriptor, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        if !serving { close(descriptor) }
    }

    deinit { stop() }

    private func serve() {
        // Each connection's thread closes its own descriptor (``stop()`` shuts them down to wake it).
        defer { close(descriptor) }
        while true {
            let connection = accept(descriptor, nil, nil)
            guard connection >= 0 else {
                let failure = errno
                // The listening descriptor is closed (by this loop's end) only once stop() has shut it
                // down: an error before that (a signal, an aborted connection, no descriptors left) waits
                // and tries again, so stop() never shuts down a number another socket may have taken.
                lock.lock()
                let isStopped = stopped
                lock.unlock()
                if isStopped { return }
                usleep(failure == EINTR ? 0 : 10_000)
                continue
            }
            lock.lock()
            if stopped { lock.unlock(); close(connection); return }
            connections.append(connection)
            waiting += 1
            peak = max(peak, waiting)
            let index = accepted
            accepted += 1
            lock.unlock()
            // Each connection on its own thread, so connections are served at the same time.
            let thread = Thread { [self] in answer(connection, index: index) }
            thread.start()
        }
    }

    /// Reads the request head and answers as ``Behavior`` says, then closes the connection (a silent
    /// one once the client or ``stop()`` ends it).
    private func answer(_ connection: Int32, index: Int) {
        var pending = [UInt8]()
        let head = readHead(connection, buffered: &pending)
        func reply(_ data: Data) {
            lock.lock()
            waiting -= 1
            lock.unlock()
            data.withUnsafeBytes { _ = send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        switch behavior {
        case .keepAlive(let replies):
            var received = head
            while received {
                lock.lock()
                let number = requestHeads.count - 1
                lock.unlock()
                let data = replies.isEmpty ? Data() : replies[min(number, replies.count - 1)]
                let sent = data.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard sent == data.count else { break }
                received = readHead(connection, buffered: &pending)
            }
            lock.lock()
            waiting -= 1
            lock.unlock()
        case .trickle(let first, let repeated, let interval):
            reply(first)
            let seconds = Double(interval.components.seconds) + Double(interval.components.attoseconds) / 1e18
            while true {
                lock.lock()
                let isStopped = stopped
                lock.unlock()
                if isStopped { break }
                Thread.sleep(forTimeInterval: seconds)
                let sent = repeated.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if sent != repeated.count { break }
            }
        case .closeOnSecondRequest(let data):
            if head {
                drainBody(connection, buffered: &pending)
                reply(data)
                if readHead(connection, buffered: &pending) { drainBody(connection, buffered: &pending) }
            }
        case .bytes(let data):
            reply(data)
        case .delayedBytes(let data, let delay):
            Thread.sleep(forTimeInterval: Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18)
            reply(data)
        case .replies(let replies):
            reply(replies.isEmpty ? Data() : replies[min(index, replies.count - 1)])
        case .neverAccept, .silent:
            var byte: UInt8 = 0
            while recv(connection, &byte, 1, 0) > 0 {}
        }
        lock.lock()
        connections.removeAll { $0 == connection }
        lock.unlock()
        shutdown(connection, Int32(SHUT_RDWR))
        close(connection)
    }

    /// Reads one request head (bodies are not expected) and records it; `buffered` keeps bytes read past
    /// it for the next call. Returns `false` when the connection ended first.
    @discardableResult
    private func readHead(_ connection: Int32, buffered: inout [UInt8]) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            if let end = Self.headEnd(in: buffered) {
                let head = Data(buffered[..<end])
                buffered.removeSubrange(..<end)
                lock.lock()
                requestHeads.append(head)
                lock.unlock()
                return true
            }
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { return false }
            buffered += buffer[0..<count]
        }
    }

    /// Reads and drops the body of the last request head read, as long as its `Content-Length` says.
    private func drainBody(_ connection: Int32, buffered: inout [UInt8]) {
        lock.lock()
        let head = requestHeads.last.map { String(decoding: $0, as: UTF8.self) } ?? ""
        lock.unlock()
        var length = 0
        for line in head.split(separator: "\r\n") {
            let parts = line.split(separator: ":", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "content-length" {
                length = Int(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
            }
        }
        var buffer = [UInt8](repeating: 0, count: 4096)
        while buffered.count < length {
            let count = recv(connection, &buffer, buffer.count, 0)
            if count <= 0 { break }
            buffered += buffer[0..<count]
        }
        buffered.removeFirst(min(length, buffered.count))
    }

    /// The index just past the first CR LF CR LF in `bytes`, if any.
    private static func headEnd(in bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for index in 3..<bytes.count
        where bytes[index - 3] == 13 && bytes[index - 2] == 10 && bytes[index - 1] == 13 && bytes[index] == 10 {
            return index + 1
        }
        return nil
    }
}
