import Foundation

/// What happened during a task: one transaction per request sent (a redirect adds one).
public struct TaskMetrics: Sendable, Hashable {
    /// One request and its response, timed.
    public struct Transaction: Sendable, Hashable {
        /// The URL requested.
        public let url: URL
        /// The response status, `0` when none arrived.
        public let statusCode: Int
        /// The negotiated HTTP version, `nil` when no response arrived.
        public let httpVersion: String?
        /// Seconds from the start until the name was resolved.
        public let nameLookup: TimeInterval
        /// Seconds from the start until the TCP connection was made.
        public let connect: TimeInterval
        /// Seconds from the start until the TLS handshake ended (0 without TLS).
        public let tlsHandshake: TimeInterval
        /// Seconds from the start until the first response byte.
        public let timeToFirstByte: TimeInterval
        /// Seconds the whole transaction took.
        public let total: TimeInterval
        /// Request body bytes sent.
        public let bytesSent: Int64
        /// Response body bytes received (before content decoding).
        public let bytesReceived: Int64
        /// Whether an existing connection was reused.
        public let reusedConnection: Bool
        /// The peer's IP address, when connected.
        public let remoteAddress: String?
        /// The peer's port, when connected.
        public let remotePort: Int?
    }

    /// The transactions in order.
    public internal(set) var transactions: [Transaction] = []
    /// When the task started.
    public internal(set) var startDate = Date()
    /// Seconds from start to completion.
    public internal(set) var duration: TimeInterval = 0

    /// The number of redirects followed.
    public var redirectCount: Int { max(0, transactions.count - 1) }
}
