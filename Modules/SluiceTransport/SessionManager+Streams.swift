import Foundation
import SluiceCore

extension SessionManager {
    /// The server's events at `request`'s URL, reconnecting when the connection drops (see
    /// ``EventStream``): each connection is a ``bytes(for:)`` call with its back-pressure, the request
    /// carries `Accept: text/event-stream` and `Cache-Control: no-cache` (unless it set them), and a
    /// reconnection adds `Last-Event-ID` (and the session's cookies, as every request does). Nothing is
    /// sent until the stream is iterated.
    ///
    /// - Parameters:
    ///   - request: The request of each connection.
    ///   - reconnection: When and how often to connect again. Default 5 in a row without an event, 3 s
    ///     apart until the server sets the time with `retry`.
    /// - Returns: The events; it throws what ``EventStream`` says (``SluiceError/Code/eventStreamRefused``,
    ///   the last network error once the limit is reached, ``SluiceError/Code/cancelled``).
    public func events(for request: HTTPRequest, reconnection: EventStream.Reconnection = EventStream.Reconnection()) -> EventStream {
        let prepared = Self.eventStreamRequest(request)
        return EventStream(reconnection: reconnection) { [self] (lastEventID: String?) throws(SluiceError) in
            let (bytes, head) = try await self.bytes(for: Self.eventStreamRequest(prepared, lastEventID: lastEventID))
            return (ResponseBodyStream(bytes), head)
        }
    }

    /// `request` with the fields an event stream's requests carry (the WHATWG rules' `Accept` and
    /// `Cache-Control`, unless set) and, for a reconnection, `Last-Event-ID` (left out when the ID cannot
    /// be a field value).
    package static func eventStreamRequest(_ request: HTTPRequest, lastEventID: String? = nil) -> HTTPRequest {
        var request = request
        // Constant, valid values.
        if !request.headers.contains("Accept") { try? request.headers.set(name: "Accept", value: "text/event-stream") }
        if !request.headers.contains("Cache-Control") { try? request.headers.set(name: "Cache-Control", value: "no-cache") }
        if let lastEventID { try? request.headers.set(name: "Last-Event-ID", value: lastEventID) }
        return request
    }
}
