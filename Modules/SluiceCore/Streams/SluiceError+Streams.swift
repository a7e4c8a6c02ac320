extension SluiceError.Code {
    /// A line of a JSON Lines (NDJSON) body is not a value of the type asked for; the error's
    /// ``SluiceError/underlying`` is a ``MalformedJSONLine`` naming the line.
    public static let malformedJSONLine: Self = "stream.malformedJSONLine"
    /// An event's data is not a value of the type asked for (``ServerSentEvent/decoded(as:decoder:)``).
    public static let malformedEventData: Self = "stream.malformedEventData"
    /// An event stream's server answered with something other than a `200` with
    /// `Content-Type: text/event-stream`: the stream ends without reconnecting, as the WHATWG rules ask.
    public static let eventStreamRefused: Self = "stream.eventStreamRefused"
}
