/// One progress report: bytes sent and received so far, with the totals when known.
public struct TransferProgress: Sendable, Hashable {
    /// Request body bytes sent.
    public let bytesSent: Int64
    /// Request body bytes to send, or `nil` when unknown.
    public let totalBytesToSend: Int64?
    /// Response body bytes received.
    public let bytesReceived: Int64
    /// Response body bytes expected, or `nil` when unknown.
    public let totalBytesExpected: Int64?

    /// A progress report with the given counts.
    public init(bytesSent: Int64, totalBytesToSend: Int64?, bytesReceived: Int64, totalBytesExpected: Int64?) {
        self.bytesSent = bytesSent
        self.totalBytesToSend = totalBytesToSend
        self.bytesReceived = bytesReceived
        self.totalBytesExpected = totalBytesExpected
    }

    /// Received over expected, `0` when unknown.
    public var fractionReceived: Double {
        guard let total = totalBytesExpected, total > 0 else { return 0 }
        return Double(bytesReceived) / Double(total)
    }
    /// Sent over total, `0` when unknown.
    public var fractionSent: Double {
        guard let total = totalBytesToSend, total > 0 else { return 0 }
        return Double(bytesSent) / Double(total)
    }
}
