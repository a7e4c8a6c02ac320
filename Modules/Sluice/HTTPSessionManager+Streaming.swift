import Foundation
import SluiceCore
import SluiceResponseSerialization
import SluiceTransport

extension HTTPSessionManager {
    /// `GET` read as it arrives: the response's body as a stream of chunks, handed over once the head
    /// arrived and its status was validated (200–299). Everything the manager does for its other verbs
    /// applies: the base URL, the request serializer, the interceptor's adapters, and its retries while
    /// no byte of the body was handed over; logging. Reading is paced by the reader: a reader that is
    /// behind pauses the transfer (the session's `streamBufferLimit`), and dropping the stream cancels it.
    ///
    /// ```swift
    /// for try await line in try await manager.bytes("stream/20").value.lines { print(line) }
    /// ```
    ///
    /// - Parameters:
    ///   - urlString: A URL, relative to the base URL.
    ///   - parameters: Query parameters. Default `nil`.
    ///   - headers: More header fields. Default none.
    /// - Returns: A response whose ``HTTPSessionResponse/value`` is the body and whose
    ///   ``HTTPSessionResponse/data`` is empty.
    /// - Throws: ``SluiceError``: a request that cannot be built; a transport failure before the head;
    ///   ``SluiceError/Code/unacceptableStatusCode`` (with the response) for a status outside 200–299; what
    ///   the interceptor gave up with. Errors while the body is read are thrown by the stream.
    public func bytes(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders()
    ) async throws(SluiceError) -> HTTPSessionResponse<ResponseBodyStream> {
        try await streaming(try request(.get, urlString, parameters: parameters, headers: headers))
    }

    /// `GET` of a JSON Lines (NDJSON) body, one `Value` per line, decoded as the lines arrive (see
    /// ``bytes(_:parameters:headers:)`` for what applies before the body is handed over).
    ///
    /// - Parameters:
    ///   - urlString: A URL, relative to the base URL.
    ///   - parameters: Query parameters. Default `nil`.
    ///   - headers: More header fields. Default none.
    ///   - type: The type of each line.
    ///   - decoder: Makes the decoder. Default a new `JSONDecoder`.
    /// - Returns: A response whose value yields the lines' values; a line that is not a `Value` fails it
    ///   with ``SluiceError/Code/malformedJSONLine``.
    /// - Throws: As ``bytes(_:parameters:headers:)``.
    public func jsonLines<Value: Decodable>(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(), as type: Value.Type,
        decoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) async throws(SluiceError) -> HTTPSessionResponse<JSONLines<ResponseBodyStream, Value>> {
        var request = try request(.get, urlString, parameters: parameters, headers: headers)
        if !headers.contains("Accept") {
            // A constant, valid value.
            try? request.headers.set(name: "Accept", value: "application/x-ndjson, application/jsonl, application/json")
        }
        let response = try await streaming(request)
        return HTTPSessionResponse(
            value: response.value.jsonLines(of: type, decoder: decoder), response: response.response, request: response.request,
            data: Data(), metrics: response.metrics, attempts: response.attempts)
    }

    /// The server-sent events at `urlString`, reconnecting when the connection drops (see
    /// ``EventStream``). Each connection is sent as ``bytes(_:parameters:headers:)`` sends (the base URL,
    /// adapters, retries before the head, status validation), with `Accept: text/event-stream`,
    /// `Cache-Control: no-cache` and, when reconnecting, `Last-Event-ID`. Nothing is sent until the
    /// stream is iterated.
    ///
    /// - Parameters:
    ///   - urlString: A URL, relative to the base URL.
    ///   - parameters: Query parameters. Default `nil`.
    ///   - headers: More header fields. Default none.
    ///   - reconnection: When and how often to connect again. Default 5 in a row without an event, 3 s
    ///     apart until the server sets the time with `retry`.
    /// - Throws: ``SluiceError`` for a request that cannot be built (the stream throws the rest).
    public func events(
        _ urlString: String, parameters: Parameters? = nil, headers: HTTPHeaders = HTTPHeaders(),
        reconnection: EventStream.Reconnection = EventStream.Reconnection()
    ) throws(SluiceError) -> EventStream {
        let prepared = SessionManager.eventStreamRequest(try request(.get, urlString, parameters: parameters, headers: headers))
        return EventStream(reconnection: reconnection) { [self] (lastEventID: String?) throws(SluiceError) in
            let response = try await streaming(SessionManager.eventStreamRequest(prepared, lastEventID: lastEventID))
            return (response.value, response.response)
        }
    }

    /// One streamed request through ``retrying(_:_:)``: the body is handed over once the status passed.
    func streaming(_ prepared: HTTPRequest) async throws(SluiceError) -> HTTPSessionResponse<ResponseBodyStream> {
        try await retrying(prepared) { (request, attempt) throws(SluiceError) in
            let received = try await transport.exchange(request, receiving: .stream, events: TransportEvents())
            guard case .stream(let body) = received.body else {
                throw SluiceError(.transportFailed, "the transport did not answer with a stream", request: request, response: received.response)
            }
            // A refused status drops the body unread, which cancels its transfer.
            try HTTPResponseSerializer().validate(request: received.request, response: received.response, body: nil)
            let metrics = received.metrics ?? TaskMetrics()
            log(received, bytes: 0, metrics: metrics, attempt: attempt)
            return HTTPSessionResponse(
                value: body, response: received.response, request: received.request, data: Data(), metrics: metrics,
                attempts: attempt)
        }
    }
}
