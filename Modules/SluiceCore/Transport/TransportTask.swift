/// One attempt an ``HTTPTransport`` is running, as its caller may see and steer it.
///
/// `SessionTask` (SluiceTransport) is the libcurl transport's.
public protocol TransportTask: AnyObject, Sendable {
    /// The request as it was given.
    var originalRequest: HTTPRequest { get }
    /// The request being sent now: after redirects, the last one.
    var currentRequest: HTTPRequest { get }
    /// The response head, once one has arrived.
    var response: HTTPResponse? { get }
    /// The counts so far, as a stream of reports ending when the task ends.
    var progressUpdates: AsyncStream<TransferProgress> { get }
    /// Whether ``cancel()`` was called (or the task ended cancelled).
    var isCancelled: Bool { get }
    /// Stops the attempt; it ends with ``SluiceError/Code/cancelled``. Does nothing once it has ended.
    func cancel()
    /// Pauses the attempt until ``resume()``.
    func suspend()
    /// Starts or continues the attempt.
    func resume()
}
