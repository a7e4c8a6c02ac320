/// Where an ``HTTPTransport`` puts a response body.
public enum ResponseBodyDestination: Sendable {
    /// Collected in memory: ``ResponseBody/data(_:)``.
    case memory
    /// Written to a temporary file as it arrives, then moved where the closure says (given the
    /// temporary file and the response head): ``ResponseBody/file(_:)``. A failed transfer leaves no file.
    case file(DownloadDestination)
    /// Delivered as it arrives, once the head is in: ``ResponseBody/stream(_:)``. The exchange returns
    /// with the head; the transfer runs on while the stream is read.
    case stream
}
