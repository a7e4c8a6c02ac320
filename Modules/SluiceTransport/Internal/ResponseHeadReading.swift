import Foundation
import SluiceCore

/// The transport's reading of response heads, for the fuzz targets of `Tools/Fuzz`; not for general use.
@_spi(Fuzzing)
public enum ResponseHeadReading {
    /// Hands `lines` to a ``ResponseHeadParser`` one by one, as libcurl's header callback does (each
    /// line with its line end: status lines, field lines, the blank line after a head, interim heads
    /// before the final one), and makes the ``HTTPResponse`` of each final head as the transport does.
    ///
    /// - Returns: The responses of the final heads read, and the reason the transfer would be aborted
    ///   (with `transport.invalidResponse`) when a line was refused; no line is read after that.
    public static func read(_ lines: [[UInt8]], maximumInterimResponses: Int) -> (responses: [HTTPResponse], refusal: String?) {
        var parser = ResponseHeadParser(maximumInterimResponses: maximumInterimResponses)
        let url = URL(string: "http://localhost/")!
        var responses: [HTTPResponse] = []
        for line in lines {
            let outcome = line.withUnsafeBytes { parser.consume($0) }
            switch outcome {
            case .proceed, .interim:
                continue
            case .head:
                let head = parser.takeHead(url: url)
                _ = head.contentRange
                responses.append(head.makeResponse())
            case .invalid(let reason):
                return (responses, reason)
            }
        }
        return (responses, nil)
    }
}
