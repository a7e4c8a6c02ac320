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
        /// Where the response came from: ``ResponseSource/network`` for an exchange on a connection, else
        /// the cache or the layer that answered (no connection, no timings).
        public var source: ResponseSource

        /// A transaction with these figures; a transport fills it in, a test double makes one up.
        ///
        /// - Parameters: Each as the property of the same name; the timings default to 0, the counts
        ///   to 0, `reusedConnection` to `false`, the remote address and port to `nil`, `source` to
        ///   ``ResponseSource/network``.
        public init(
            url: URL, statusCode: Int, httpVersion: String?, nameLookup: TimeInterval = 0, connect: TimeInterval = 0,
            tlsHandshake: TimeInterval = 0, timeToFirstByte: TimeInterval = 0, total: TimeInterval = 0,
            bytesSent: Int64 = 0, bytesReceived: Int64 = 0, reusedConnection: Bool = false,
            remoteAddress: String? = nil, remotePort: Int? = nil, source: ResponseSource = .network
        ) {
            self.url = url
            self.statusCode = statusCode
            self.httpVersion = httpVersion
            self.nameLookup = nameLookup
            self.connect = connect
            self.tlsHandshake = tlsHandshake
            self.timeToFirstByte = timeToFirstByte
            self.total = total
            self.bytesSent = bytesSent
            self.bytesReceived = bytesReceived
            self.reusedConnection = reusedConnection
            self.remoteAddress = remoteAddress
            self.remotePort = remotePort
            self.source = source
        }
    }

    /// The transactions in order.
    public var transactions: [Transaction]
    /// When the task started.
    public var startDate: Date
    /// Seconds from start to completion.
    public var duration: TimeInterval

    /// Metrics of a task that started at `startDate`.
    ///
    /// - Parameters:
    ///   - transactions: The transactions in order. Default none.
    ///   - startDate: When the task started. Default now.
    ///   - duration: Seconds from start to completion. Default 0.
    public init(transactions: [Transaction] = [], startDate: Date = Date(), duration: TimeInterval = 0) {
        self.transactions = transactions
        self.startDate = startDate
        self.duration = duration
    }

    /// Where the final response came from (the last transaction's ``Transaction/source``);
    /// ``ResponseSource/network`` when there is no transaction.
    public var source: ResponseSource { transactions.last?.source ?? .network }

    /// The number of redirects followed.
    public var redirectCount: Int { max(0, transactions.count - 1) }
}
