import Foundation
import Logging
import SluiceCore
import SluiceResponseSerialization

extension HTTPSessionManager {
    /// Turns a received response into the value a request returns.
    public typealias Serialize<Output> = @Sendable (HTTPRequest, HTTPResponse, Data) throws(SluiceError) -> Output

    /// Sends `request` (already built) and makes its value with `serializer`, through the interceptor's
    /// adaptation and retries.
    ///
    /// - Parameters:
    ///   - request: The request.
    ///   - serializer: Makes the value; its refusals (an unacceptable status or type) are failed
    ///     attempts the interceptor may retry.
    ///   - progress: Progress of each attempt. Default `nil`.
    /// - Throws: ``SluiceError``: the last attempt's error (transport or serializer), or what the
    ///   interceptor gave up with; ``SluiceError/Code/cancelled`` when the calling task is cancelled.
    ///   Its ``SluiceError/attempts`` says how many attempts were made (1 without a retry).
    public func send<Serializer: ResponseSerializer>(
        _ request: HTTPRequest, serializer: Serializer, progress: ProgressHandler? = nil
    ) async throws(SluiceError) -> HTTPSessionResponse<Serializer.Output> {
        try await send(request, progress: progress, task: nil) { (request, response, data) throws(SluiceError) in
            try serializer.serialize(request: request, response: response, body: data)
        }
    }

    /// One request of the data verbs: sent through the ``transport`` in memory and serialized, through
    /// ``retrying(_:_:)``.
    func send<Output: Sendable>(
        _ prepared: HTTPRequest, progress: ProgressHandler?, task handle: HTTPSessionTask?,
        serialize: Serialize<Output>
    ) async throws(SluiceError) -> HTTPSessionResponse<Output> {
        try await retrying(prepared) { (request, attempt) throws(SluiceError) in
            var events = TransportEvents(progress: progress)
            if let handle { events.didCreateTask = { task in handle.attemptStarted(task) } }
            let received = try await transport.exchange(request, receiving: .memory, events: events)
            let data = received.body.data ?? Data()
            let metrics = received.metrics ?? TaskMetrics()
            log(received, bytes: data.count, metrics: metrics, attempt: attempt)
            let value = try serialize(received.request, received.response, data)
            return HTTPSessionResponse(
                value: value, response: received.response, request: received.request, data: data,
                metrics: metrics, attempts: attempt)
        }
    }

    /// The loop behind every request: adapt, run one attempt, and on failure ask the retrier (waiting
    /// its delay). The error it throws carries the number of attempts made.
    func retrying<Output: Sendable>(
        _ prepared: HTTPRequest,
        _ attemptOnce: (_ request: HTTPRequest, _ attempt: Int) async throws(SluiceError) -> HTTPSessionResponse<Output>
    ) async throws(SluiceError) -> HTTPSessionResponse<Output> {
        let interceptor = self.interceptor
        var attempt = 0
        func ending(_ error: SluiceError) -> SluiceError {
            var failure = error
            failure.attempts = attempt
            return failure
        }
        while true {
            attempt += 1
            var request = prepared
            do throws(SluiceError) {
                if let interceptor { request = try await adapt(request, with: interceptor) }
                log(start: request, attempt: attempt)
                return try await attemptOnce(request, attempt)
            } catch {
                guard let interceptor, error.code != .cancelled, !Task.isCancelled else {
                    log(failure: error, request: request, attempt: attempt, retrying: false)
                    throw ending(error)
                }
                let decision = await interceptor.retry(request, for: self, dueTo: error, attempt: attempt)
                log(failure: error, request: request, attempt: attempt, retrying: decision.retries)
                switch decision {
                case .doNotRetry:
                    throw ending(error)
                case .doNotRetryWithError(let replacement):
                    throw ending(replacement)
                case .retry:
                    continue
                case .retryAfter(let delay):
                    do {
                        try await Task.sleep(for: delay)
                    } catch {
                        throw ending(SluiceError(.cancelled, "cancelled while waiting to retry", request: request))
                    }
                }
            }
        }
    }

    func adapt(_ request: HTTPRequest, with adapter: any RequestAdapter) async throws(SluiceError) -> HTTPRequest {
        do {
            return try await adapter.adapt(request, for: self)
        } catch {
            throw SluiceError.wrapping(error, as: .requestAdaptationFailed, "a request adapter refused the request", request: request)
        }
    }

    // MARK: Logging

    func log(start request: HTTPRequest, attempt: Int) {
        logger.debug(
            "\(request.method.rawValue) \(Self.loggable(request.url))",
            metadata: ["attempt": "\(attempt)"])
        if logger.logLevel <= .trace {
            logger.trace("request", metadata: ["curl": "\(request.cURLDescription())"])
        }
    }

    func log(_ received: TransportExchange, bytes: Int, metrics: TaskMetrics, attempt: Int) {
        // Built for every response otherwise: skip the metadata when nothing at info would be kept.
        guard logger.logLevel <= .info else { return }
        var metadata: Logger.Metadata = [
            "status": "\(received.response.statusCode)",
            "attempt": "\(attempt)",
            "duration_ms": "\(Self.milliseconds(metrics.duration))",
            "bytes_received": "\(bytes)",
            "source": "\(metrics.source)",
        ]
        if let file = received.body.fileURL { metadata["file"] = "\(file.path)" }
        if let transaction = metrics.transactions.last {
            metadata["dns_ms"] = "\(Self.milliseconds(transaction.nameLookup))"
            metadata["connect_ms"] = "\(Self.milliseconds(transaction.connect))"
            metadata["tls_ms"] = "\(Self.milliseconds(transaction.tlsHandshake))"
            metadata["ttfb_ms"] = "\(Self.milliseconds(transaction.timeToFirstByte))"
            metadata["bytes_sent"] = "\(transaction.bytesSent)"
            metadata["http_version"] = "\(transaction.httpVersion ?? "?")"
            metadata["reused_connection"] = "\(transaction.reusedConnection)"
        }
        logger.info(
            "\(received.response.statusCode) \(received.request.method.rawValue) \(Self.loggable(received.request.url))",
            metadata: metadata)
        if logger.logLevel <= .trace {
            logger.trace("response", metadata: [
                "headers": "\(received.response.headers.map { "\($0.name): \($0.value)" })",
                "body": "\(received.body.data.map(Self.bodyExcerpt) ?? "")",
            ])
        }
    }

    func log(failure error: SluiceError, request: HTTPRequest, attempt: Int, retrying: Bool) {
        var metadata: Logger.Metadata = ["error": "\(error.code)", "attempt": "\(attempt)", "retrying": "\(retrying)"]
        if let status = error.response?.statusCode { metadata["status"] = "\(status)" }
        logger.log(
            level: retrying ? .warning : .error,
            "\(request.method.rawValue) \(Self.loggable(request.url)) failed: \(error.message)", metadata: metadata)
    }

    /// The URL without user name or password.
    static func loggable(_ url: URL) -> String { RequestTarget.redacted(url) }

    private static func milliseconds(_ interval: TimeInterval) -> String { String(format: "%.1f", interval * 1000) }

    private static func bodyExcerpt(_ data: Data) -> String {
        let head = data.prefix(4096)
        let text = String(data: head, encoding: .utf8) ?? "<\(data.count) bytes, not UTF-8>"
        return data.count > head.count ? text + "… (\(data.count) bytes)" : text
    }
}
