import Foundation

/// One event of a `text/event-stream` body, as the WHATWG HTML standard's event-stream rules dispatch
/// it (section 9.2, "Server-sent events").
public struct ServerSentEvent: Sendable, Hashable, CustomStringConvertible {
    /// The event's type: its `event` field, `"message"` when it had none.
    public var type: String
    /// Its `data` fields joined by line feeds.
    public var data: String
    /// The last event ID when it was dispatched: its own `id` field or the last one before it (empty when
    /// none was sent, or the last was empty). A reconnection sends it as `Last-Event-ID`.
    public var lastEventID: String

    /// An event.
    ///
    /// - Parameters:
    ///   - type: The type. Default `"message"`.
    ///   - data: The data.
    ///   - lastEventID: The last event ID. Default empty.
    public init(type: String = "message", data: String, lastEventID: String = "") {
        self.type = type
        self.data = data
        self.lastEventID = lastEventID
    }

    /// The data decoded from JSON.
    ///
    /// - Parameters:
    ///   - type: The type to decode.
    ///   - decoder: The decoder. Default a new `JSONDecoder`.
    /// - Throws: ``SluiceError`` with code ``SluiceError/Code/malformedEventData`` for data that is not
    ///   `type` in JSON; its ``SluiceError/underlying`` is the decoder's error.
    public func decoded<Value: Decodable>(as type: Value.Type, decoder: JSONDecoder = JSONDecoder()) throws(SluiceError) -> Value {
        do {
            return try decoder.decode(type, from: Data(data.utf8))
        } catch {
            throw SluiceError(
                .malformedEventData, "the data of a \(self.type) event (last event ID \"\(lastEventID)\") is not \(type): \(error)",
                underlying: error)
        }
    }

    /// `type: data`.
    public var description: String { "\(type): \(data)" }
}
